import path from 'node:path';
import { loadEnv } from '../../config';
import { sandboxAdmin } from '../sandbox/admin-client';
import type { RunningStack } from '../stack/stack';
import type { BenchOptions } from './options';
import { findDescendant } from '../measure/proc-tree';

/**
 * How the bench sets up the stacks it times (bench/run.ts): the environment without latency, faults
 * or throttling, the one event route a deployment would run, the workers' environment and node
 * flags, and where the Temporal server process is (its CPU is part of the cost).
 */

const ROOT = path.resolve(__dirname, '../..');

export const WORKER_ENV = { LOG_LEVEL: 'info' };
const HEAP_PROBE = path.join(__dirname, '../measure/heap-probe.cjs');
/** `--cpu-prof`: node writes each process's profiles when it stops (the sandbox's and the events receiver's too: where the route's CPU goes). */
export const serviceNodeArgs = (opts: BenchOptions): string[] => (opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`] : []);
/**
 * `--cpu-prof`: node writes each worker's profiles (one file a thread) when the worker stops.
 * `--heap-probe`: the probe is loaded before the worker (`--require`) and writes where `workerEnv` says.
 */
export const workerNodeArgs = (opts: BenchOptions): string[] => [
  ...serviceNodeArgs(opts),
  ...(opts.heapProbeDir ? ['--require', HEAP_PROBE] : []),
  ...opts.workerNodeFlags,
];
export const workerEnv = (opts: BenchOptions): Record<string, string> => ({
  ...WORKER_ENV,
  ...(opts.heapProbeDir ? { HEAP_PROBE_DIR: opts.heapProbeDir } : {}),
});

/** The stack's environment for the bench: no artificial latency, no faults, no client-side throttling. */
export function benchEnv(dataDir: string, eventWaitSeconds: number, engine: BenchOptions['engine']): Record<string, string | undefined> {
  return {
    ...loadEnv(ROOT),
    KRAKEN_TEMPORAL_ENGINE: engine,
    DATA_DIR: dataDir,
    SOURCE_DOCUMENTS_DIR: path.join(dataDir, 'source-documents'),
    LOG_LEVEL: 'warn',
    SANDBOX_PROCESSING_DELAY_MS: '0',
    SANDBOX_LATENCY_MS: '0',
    SANDBOX_LATENCY_JITTER_MS: '0',
    SANDBOX_FAULT_5XX_RATE: '0',
    SANDBOX_FAULT_429_RATE: '0',
    SANDBOX_FAULT_DROP_CONNECTION_RATE: '0',
    SANDBOX_EVENT_DROP_RATE: '0',
    SANDBOX_EVENT_DUPLICATE_RATE: '0',
    SANDBOX_EVENT_DELAY_MS: '0',
    SANDBOX_EVENT_REORDER: 'false',
    PLATFORM_RATE_LIMIT_PER_SECOND: '10000',
    OUTCOME_EVENT_WAIT_SECONDS: String(eventWaitSeconds),
  };
}

/**
 * The stack delivers each event by both routes (the dev stack's default, so either can be tried);
 * a deployment runs one. The sandbox's admin API switches the other off before anything is timed.
 */
export async function routeEvents(stack: RunningStack, route: BenchOptions['eventsRoute']): Promise<void> {
  if (route === 'both') return;
  await sandboxAdmin(stack.info.sandboxUrl, 'PUT', '/admin/event-targets', route === 'sqs' ? { webhookUrl: null } : { sqsQueueUrl: null });
}

export function findTemporalPid(): number | undefined {
  // The CLI's dev server, or the server engine's temporal-server (its UI server runs with `--env ui`).
  return findDescendant(
    process.pid,
    (cmd) => (/temporal\b/.test(cmd) && cmd.includes('start-dev')) || (/temporal-server\b/.test(cmd) && cmd.includes('--env server')),
  );
}
