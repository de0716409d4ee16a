// What `kraken-migrate worker`, `events serve`, `codec serve` and `config print` does. cli/commands/services.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import path from 'node:path';
import { maskedConfig } from '../../config';
import { loadCliContext, ROOT } from '../context';
import { printJson, println } from '../output';
import { optionsSchema, parseOptions } from '../option-schema';
import { jsonOnly } from '../options/commands';

export async function workerAction(): Promise<void> {
  const ctx = loadCliContext();
  // Imported here: the worker pulls in Temporal's native bridge, which other commands do not need.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by the command that needs it (see the comment above)
  const { runWorker } = require('../../workers/run-worker') as typeof import('../../workers/run-worker');
  // The same life as the embedded stack's workers, ready file included (the compose health check reads it).
  await runWorker(ctx.cfg);
}

export function eventsServeAction(): void {
  const ctx = loadCliContext();
  // events/main.ts reads its config from the environment: hand it the stack-completed one.
  for (const [k, v] of Object.entries(ctx.env)) if (process.env[k] === undefined && v !== undefined) process.env[k] = v;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by the command that needs it (see the comment above)
  require(path.join(ROOT, 'events', 'main.ts'));
}

export function codecServeAction(): void {
  const ctx = loadCliContext();
  for (const [k, v] of Object.entries(ctx.env)) if (process.env[k] === undefined && v !== undefined) process.env[k] = v;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by the command that needs it (see the comment above)
  require(path.join(ROOT, 'codec', 'main.ts'));
}

const configPrintOptionsSchema = optionsSchema(jsonOnly());

export function configPrintAction(options: unknown): void {
  const opts = parseOptions(configPrintOptionsSchema, options);
  const ctx = loadCliContext();
  const masked = maskedConfig(ctx.cfg);
  if (opts.json) return printJson(masked);
  for (const [k, v] of Object.entries(masked)) println(`${k}=${String(v)}`);
  if (ctx.stack) println(`# completed from the running dev stack in ${ctx.dataDir}`);
}
