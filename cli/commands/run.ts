import { Command } from 'commander';
import { STOP_LINE_DEFAULTS } from '../../domain/stop-line';
import { addPostImportRunCommands } from './post-import';
import { declareOptions } from '../option-table';
import {
  COMPARE_OPTIONS,
  controlRunOptions,
  LIST_RUNS_OPTIONS,
  RERUN_FAILED_OPTIONS,
  RESEND_REGISTRATION_OPTIONS,
  RUN_STATUS_OPTIONS,
  START_RUN_OPTIONS,
  SUPPLY_OPTIONS,
} from '../options/run';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const runActions = (): typeof import('../actions/run') => require('../actions/run');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the ledger alone: no Temporal or platform client to load
const listActions = (): typeof import('../actions/ledger-lists') => require('../actions/ledger-lists');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the ledger first, Temporal beside it (loaded only to ask)
const statusActions = (): typeof import('../actions/run-status') => require('../actions/run-status');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the ledger, and Temporal for a resend
const supplyActions = (): typeof import('../actions/supply') => require('../actions/supply');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the ledger alone
const compareActions = (): typeof import('../actions/compare') => require('../actions/compare');

export function runCommand(): Command {
  const run = new Command('run').description('start, watch and steer migration runs');

  declareOptions(run.command('start'), START_RUN_OPTIONS)
    .description('start a migration run (the run registers itself in the ledger)')
    .addHelpText(
      'after',
      `
Stop the line (on unless --no-stop-line): the run pauses its own dispatch when ${STOP_LINE_DEFAULTS.maxSameCode} platform-side
failures with one code come in a row, or more than ${STOP_LINE_DEFAULTS.maxFailureRate * 100}% of the last ${STOP_LINE_DEFAULTS.overLast} platform-side outcomes
failed. Accounts in flight finish; the rest wait. \`run status\` says why; \`run resume\` continues.
Data errors found locally (validation, documents) are counted apart and never stop the line.

Examples:
  $ kraken-migrate run start --supplier DEMO-SUPPLIER --limit 100 --watch
  $ kraken-migrate run start --source legacy.jsonl --dry-run --json
  $ kraken-migrate run start --accounts retry.txt --concurrency 20
  $ kraken-migrate run start --payloads accounts.jsonl.gz --documents ./documents --watch
  $ kraken-migrate run start --payloads-table billing.kraken_payloads --documents s3://team-bucket/letters`,
    )
    .action(async (opts) => runActions().startRunAction(opts));

  run
    .command('watch <runId>')
    .description('live progress until the run ends; exit 0 if every account completed, 1 otherwise')
    .addHelpText(
      'after',
      `
Ctrl-C stops watching only: the run keeps going in Temporal.
When stdout is not a terminal, one progress line is printed every 5 seconds.

Example:
  $ kraken-migrate run watch run-20250601-120000-ab12`,
    )
    .action(async (runId: string) => runActions().watchRunAction(runId));

  declareOptions(run.command('status <runId>'), RUN_STATUS_OPTIONS)
    .description("a run's state: workflow status, progress, outcomes, stages, top errors")
    .addHelpText(
      'after',
      `
A run Temporal does not know (its retention passed) or a Temporal that does not answer within 3 s
is answered from the ledger alone, with a line saying so (no workflow status, progress or retrying accounts).

Example:
  $ kraken-migrate run status run-20250601-120000-ab12 --json | jq .outcomes`,
    )
    .action(async (runId: string, opts) => statusActions().runStatusAction(runId, opts));

  declareOptions(run.command('supply <runId>'), SUPPLY_OPTIONS)
    .description(
      "a switch's meter points (run start --send-registration-flows): status as last read from the tenant, final or not, since when, the detail of a refused flow",
    )
    .addHelpText(
      'after',
      `
A point is final when the tool has left it: a final status (on supply; objected, rejected, unable to
register, withdrawn; erroneous transfer; lost), or a flow the platform refused or that was held because
another point of its account was on its way (left for the operator). An account is on supply only when
every one of its points is. See docs/supply.md.

Example:
  $ kraken-migrate run supply run-20250601-120000-ab12 --json | jq '.funnel.accounts'`,
    )
    .action(async (runId: string, opts) => supplyActions().supplyAction(runId, opts));

  declareOptions(run.command('resend-registration <runId>'), RESEND_REGISTRATION_OPTIONS)
    .description('send registration flows again for points whose switch ended refused, once the cause is cleared')
    .addHelpText(
      'after',
      `
Each account's follow reads the statuses first and sends only when every point of the account should
get a flow: a point on its way or on supply never gets a second one.

Example:
  $ kraken-migrate run resend-registration run-20250601-120000-ab12 --status REGISTRATION_OBJECTED`,
    )
    .action(async (runId: string, opts) => supplyActions().resendRegistrationAction(runId, opts));

  declareOptions(run.command('compare'), COMPARE_OPTIONS)
    .description('two runs of one cohort side by side (trial loads): accounts fixed, newly failing and still failing, by code')
    .argument('[a]', 'the earlier run')
    .argument('[b]', 'the later run')
    .addHelpText(
      'after',
      `
Examples:
  $ kraken-migrate run compare trial-1 trial-2
  $ kraken-migrate run compare --plan cutover-autumn --wave pilot --json`,
    )
    .action(async (a: string | undefined, b: string | undefined, opts) => compareActions().compareAction(a, b, opts));

  declareOptions(run.command('list'), LIST_RUNS_OPTIONS)
    .description('recent runs (Temporal visibility + ledger)')
    .addHelpText('after', '\nExamples:\n  $ kraken-migrate run list\n  $ kraken-migrate run list --supplier DEMO-SUPPLIER --json')
    .action(async (opts) => runActions().listRunsAction(opts));

  for (const action of ['pause', 'resume', 'cancel'] as const) {
    const what = {
      pause: 'stop dispatching new accounts (accounts in flight finish)',
      resume: 'resume a paused run',
      cancel: 'stop the run: accounts in flight finish, the rest are recorded as not attempted (run_cancelled)',
    }[action];
    const cmd = declareOptions(run.command(`${action} <runId>`), controlRunOptions(action))
      .description(what)
      .addHelpText(
        'after',
        `\nExample:\n  $ kraken-migrate run ${action} run-20250601-120000-ab12${action === 'resume' ? '' : ' --reason "platform maintenance"'}`,
      );
    cmd.action(async (runId: string, opts) => runActions().controlRunAction(action, runId, opts));
  }

  declareOptions(run.command('rerun-failed <runId>'), RERUN_FAILED_OPTIONS)
    .description("start a new run over a run's failed and not-attempted accounts (same supplier and source)")
    .addHelpText(
      'after',
      `
--list reads only the ledger (no Temporal needed), through the query the new run's selection uses,
so what it prints is what a rerun would start.

Examples:
  $ kraken-migrate run rerun-failed run-20250601-120000-ab12 --code tariff_code_not_found --list | wc -l
  $ kraken-migrate run rerun-failed run-20250601-120000-ab12 --watch
  $ kraken-migrate run rerun-failed run-20250601-120000-ab12 --code invalid_phone_number missing_meter_point`,
    )
    .action(async (runId: string, opts) =>
      opts.list && opts.stage === undefined ? listActions().rerunFailedListAction(runId, opts) : runActions().rerunFailedAction(runId, opts),
    );

  addPostImportRunCommands(run);
  return run;
}
