import { Command, Option } from 'commander';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const devActions = (): typeof import('../actions/dev') => require('../actions/dev');

export function devCommand(): Command {
  return new Command('dev')
    .description('run the whole embedded stack (Temporal + UI, Postgres, S3/SQS, platform sandbox, events, codec, one worker) until Ctrl-C')
    .option('--workers <n>', 'worker processes', (v) => Number.parseInt(v, 10), 1)
    .addOption(
      new Option(
        '--engine <engine>',
        'Temporal engine: dev = the CLI dev server (SQLite), server = the Temporal server on the embedded Postgres (default: KRAKEN_TEMPORAL_ENGINE, else dev)',
      ).choices(['dev', 'server']),
    )
    .addHelpText(
      'after',
      `
Uses the configured ports (TEMPORAL_PORT, TEMPORAL_UI_PORT, PG_PORT, S3_PORT, SANDBOX_PORT, EVENTS_PORT,
CODEC_PORT). Other commands in another terminal find this stack through <DATA_DIR>/stack.json.

Examples:
  $ npm run dev
  $ npm run dev -- --engine server                 the production shape: Temporal server on Postgres
  $ DATA_DIR=.data/demo SOURCE_DOCUMENTS_DIR=.data/demo/source-documents npm run dev`,
    )
    .action(async (opts) => devActions().devAction(opts));
}
