import { Command } from 'commander';
import { declareOptions } from '../option-table';
import { jsonOnly } from '../options/commands';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const serviceActions = (): typeof import('../actions/services') => require('../actions/services');

export function workerCommand(): Command {
  return new Command('worker')
    .description('run a worker process (workflows and activities) until Ctrl-C / SIGTERM')
    .addHelpText('after', '\nRun several for more throughput; each needs DATABASE_URL and Temporal.\n\nExample:\n  $ kraken-migrate worker')
    .action(async () => serviceActions().workerAction());
}

export function eventsCommand(): Command {
  const events = new Command('events').description('the platform events receiver (webhook + SQS)');
  events
    .command('serve')
    .description('run the events receiver until Ctrl-C')
    .option('--allow-unsigned', 'development only: accept unsigned webhook deliveries when no EVENTS_WEBHOOK_SECRET is set')
    .addHelpText('after', '\nExample:\n  $ kraken-migrate events serve')
    .action(() => serviceActions().eventsServeAction());
  return events;
}

export function codecCommand(): Command {
  const codec = new Command('codec').description('the payload codec server for the Temporal Web UI and CLI');
  codec
    .command('serve')
    .description('run the codec server until Ctrl-C (CODEC_HOST:CODEC_PORT; anything but loopback needs CODEC_AUTH_TOKEN)')
    .addHelpText('after', '\nExample:\n  $ kraken-migrate codec serve')
    .action(() => serviceActions().codecServeAction());
  return codec;
}

export function configCommand(): Command {
  const config = new Command('config').description('configuration');
  declareOptions(config.command('print'), jsonOnly())
    .description('the effective configuration, secrets masked (environment + .env + running dev stack)')
    .addHelpText('after', '\nExamples:\n  $ kraken-migrate config print\n  $ DATA_DIR=.data/demo kraken-migrate config print --json')
    .action((opts) => serviceActions().configPrintAction(opts));
  return config;
}
