import path from 'node:path';
import { Command } from 'commander';
import { workerIdentity } from '../../clients/temporal';
import { maskedConfig } from '../../config';
import { loadCliContext, ROOT } from '../context';
import { printJson, println } from '../output';

export function workerCommand(): Command {
  return new Command('worker')
    .description('run a worker process (workflows and activities) until Ctrl-C / SIGTERM')
    .addHelpText('after', '\nRun several for more throughput; each needs DATABASE_URL and Temporal.\n\nExample:\n  $ kraken-migrate worker')
    .action(async () => {
      const ctx = loadCliContext();
      // Imported here: the worker pulls in Temporal's native bridge, which other commands do not need.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by the command that needs it (see the comment above)
      const { createWorkers } = require('../../workers/worker') as typeof import('../../workers/worker');
      const w = await createWorkers(ctx.cfg, { identity: workerIdentity() });
      w.logger.info(
        { taskQueue: ctx.cfg.TEMPORAL_TASK_QUEUE, pid: process.pid, deploymentName: w.version.deploymentName, buildId: w.version.buildId },
        'worker ready',
      );
      // Temporal's runtime shuts the workers down gracefully on SIGINT / SIGTERM.
      await w.run();
      await w.close();
      w.logger.info('worker stopped');
    });
}

export function eventsCommand(): Command {
  const events = new Command('events').description('the platform events receiver (webhook + SQS)');
  events
    .command('serve')
    .description('run the events receiver until Ctrl-C')
    .option('--allow-unsigned', 'development only: accept unsigned webhook deliveries when no EVENTS_WEBHOOK_SECRET is set')
    .addHelpText('after', '\nExample:\n  $ kraken-migrate events serve')
    .action(() => {
      const ctx = loadCliContext();
      // events/main.ts reads its config from the environment: hand it the stack-completed one.
      for (const [k, v] of Object.entries(ctx.env)) if (process.env[k] === undefined && v !== undefined) process.env[k] = v;
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by the command that needs it (see the comment above)
      require(path.join(ROOT, 'events', 'main.ts'));
    });
  return events;
}

export function codecCommand(): Command {
  const codec = new Command('codec').description('the payload codec server for the Temporal Web UI and CLI');
  codec
    .command('serve')
    .description('run the codec server until Ctrl-C (CODEC_HOST:CODEC_PORT; anything but loopback needs CODEC_AUTH_TOKEN)')
    .addHelpText('after', '\nExample:\n  $ kraken-migrate codec serve')
    .action(() => {
      const ctx = loadCliContext();
      for (const [k, v] of Object.entries(ctx.env)) if (process.env[k] === undefined && v !== undefined) process.env[k] = v;
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by the command that needs it (see the comment above)
      require(path.join(ROOT, 'codec', 'main.ts'));
    });
  return codec;
}

export function configCommand(): Command {
  const config = new Command('config').description('configuration');
  config
    .command('print')
    .description('the effective configuration, secrets masked (environment + .env + running dev stack)')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  $ kraken-migrate config print\n  $ DATA_DIR=.data/demo kraken-migrate config print --json')
    .action((opts) => {
      const ctx = loadCliContext();
      const masked = maskedConfig(ctx.cfg);
      if (opts.json) return printJson(masked);
      for (const [k, v] of Object.entries(masked)) println(`${k}=${String(v)}`);
      if (ctx.stack) println(`# completed from the running dev stack in ${ctx.dataDir}`);
    });
  return config;
}
