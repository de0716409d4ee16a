// What `kraken-migrate dev` (and the stack start-up `demo` shares) does. cli/commands/dev.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import path from 'node:path';
import { loadEnv } from '../../../config';
import { maskUrlPassword } from '../../../config';
import { holdStopSignals, type StopRequests } from '../../../process/stop-signals';
import { killAllStartedNow } from '../../stack/child-process';
import { startStack, type RunningStack } from '../../stack/stack';
import { provisionTemporalCli } from '../../stack/temporal-cli';
import { ROOT } from '../../../cli/context';
import { info, println } from '../../../cli/output';

let stackStops: StopRequests | undefined;
/**
 * For a command that starts the stack: from now on Ctrl-C, SIGTERM and SIGHUP (the terminal closed)
 * ask it to stop, however often they arrive, and a second Ctrl-C while stopping kills what is left
 * (process/stop-signals.ts says why the signals must stay held). Once per process.
 */
export function holdStackStopSignals(): StopRequests {
  if (stackStops) return stackStops;
  stackStops = holdStopSignals();
  stackStops.onRepeat(() => {
    info('Stopping faster: killing what is left…');
    killAllStartedNow();
  });
  return stackStops;
}

export function endpointLines(stack: RunningStack, workerPids: number[] = stack.info.workerPids): string[] {
  const i = stack.info;
  return [
    `Temporal engine  ${i.temporalEngine === 'server' ? 'Temporal server on Postgres (databases temporal, temporal_visibility)' : 'Temporal CLI dev server (SQLite)'}`,
    `Temporal UI      ${i.temporalUiUrl}`,
    `Temporal gRPC    ${i.temporalAddress} (namespace ${i.temporalNamespace}, task queue ${stack.config.TEMPORAL_TASK_QUEUE})`,
    `Postgres         ${maskUrlPassword(i.databaseUrl)}`,
    `S3               ${i.s3Endpoint} (bucket ${i.platformBucket})`,
    `SQS              ${i.eventsQueueUrl}`,
    `Platform sandbox ${i.sandboxUrl}`,
    `Events receiver  ${i.eventsUrl}`,
    `Codec server     ${i.codecUrl}`,
    ...Object.entries(i.metrics).map(([name, url]) => `Metrics          ${url} (${name})`),
    `Data directory   ${i.dataDir} (logs in ${path.join(i.dataDir, 'logs')})`,
    `Workers          pid ${workerPids.join(', ') || 'none'}`,
  ];
}

const VERBOSE = new Set(['info', 'debug', 'trace']);

/**
 * Starts the stack and makes sure Ctrl-C during start-up still stops what was started. The
 * in-process services (sandbox, events receiver, codec server) log to this terminal, so they log
 * warnings only unless LOG_LEVEL says otherwise; workers log to files at info at least, which the
 * stack's readiness check reads.
 */
export async function startStackInterruptibly(
  env: Record<string, string | undefined>,
  opts: { freePorts?: boolean; workers?: number; banner: string },
): Promise<{ stack: RunningStack; workerPids: number[]; interrupted: () => boolean }> {
  // A missing Temporal CLI is reported before anything is announced or started (one line).
  provisionTemporalCli({ env: { ...process.env, ...env } });
  info(opts.banner);
  const stops = holdStackStopSignals();
  let started = false;
  void stops.requested.then(() => {
    if (!started) info('Interrupted: stopping what has started…');
  });
  const interrupted = () => stops.first() !== undefined;
  try {
    const stack = await startStack({
      env: { ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' },
      freePorts: opts.freePorts,
      workers: 0,
      log: (l) => info(`  · ${l}`),
    });
    const workerPids: number[] = [];
    try {
      for (let n = 0; n < (opts.workers ?? 1) && !interrupted(); n++) {
        info(`  · starting worker ${n + 1}`);
        workerPids.push((await stack.startWorker({ LOG_LEVEL: env.LOG_LEVEL && VERBOSE.has(env.LOG_LEVEL) ? env.LOG_LEVEL : 'info' })).pid);
      }
    } catch (e) {
      await stack.stop();
      throw e;
    }
    return { stack, workerPids, interrupted };
  } finally {
    started = true;
  }
}

export async function stopStack(stack: RunningStack): Promise<void> {
  info('Stopping the stack…');
  await stack.stop();
  info('Stopped.');
}

export async function devAction(opts: { workers: number; engine?: 'dev' | 'server' }): Promise<void> {
  const env = loadEnv();
  if (opts.engine) env.KRAKEN_TEMPORAL_ENGINE = opts.engine;
  const { stack, workerPids, interrupted } = await startStackInterruptibly(env, {
    workers: opts.workers,
    banner: `Starting the embedded stack (Temporal engine: ${env.KRAKEN_TEMPORAL_ENGINE ?? 'dev'})…`,
  });
  if (!interrupted()) {
    println('Stack is up:');
    for (const l of endpointLines(stack, workerPids)) println(`  ${l}`);
    const dataDirArg = path.relative(ROOT, stack.info.dataDir) === '.data' ? '' : `DATA_DIR=${path.relative(ROOT, stack.info.dataDir)} `;
    println(`\nFrom another terminal: ${dataDirArg}npx kraken-migrate run start --limit 20 --watch`);
    println('Ctrl-C stops everything.');
    await holdStackStopSignals().requested;
  }
  await stopStack(stack);
}
