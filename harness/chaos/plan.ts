import { z } from 'zod';
import { createPrng } from '../sandbox/prng';

const rate = z.number().min(0).max(1);
const count = z.number().int().min(0);

/** Everything a chaos run does; `--smoke` and the defaults are two presets of it. */
export const chaosOptionsSchema = z.object({
  accounts: z.number().int().positive().default(1000),
  concurrency: z.number().int().positive().default(50),
  /** Worker processes kept running (a killed one is replaced). */
  workers: z.number().int().positive().default(2),
  workerKills: count.default(10),
  /** Kills aimed at (and proven to hit) a schedule call in flight. */
  midScheduleKills: count.default(3),
  serverRestarts: count.default(1),
  sandboxRestarts: count.default(1),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  faults: z
    .object({
      error5xxRate: rate.default(0.2),
      responseLostRate: rate.default(0.1),
      throttleBursts: count.default(3),
      throttleBurstRate: rate.default(0.5),
      throttleBurstSeconds: z.number().positive().default(5),
      retryAfterSeconds: z.number().int().positive().default(3),
      eventDropRate: rate.default(0.2),
      eventDuplicateRate: rate.default(0.2),
      eventLateRate: rate.default(0.2),
      eventLateMinMs: count.default(30_000),
      eventLateMaxMs: count.default(120_000),
      eventReorder: z.boolean().default(true),
      /** Schedule calls are held this long at the sandbox, so kills can land mid-call. */
      scheduleLatencyMs: count.default(1_500),
      /** The sandbox's blind-resend trap: a lost answer's import stays pending this long, a repeated schedule opens a second import. */
      blindResendTrapMs: count.default(15_000),
    })
    .prefault({}),
  /** Give up (and fail) when the run has not ended by then. */
  timeoutMinutes: z.number().positive().default(60),
});
export type ChaosOptions = z.infer<typeof chaosOptionsSchema>;
export type ChaosOptionsInput = z.input<typeof chaosOptionsSchema>;

/** `--smoke`: the CI preset (2.5-6 minutes on 2 cores: 155-330 s measured, depending on load). */
export const SMOKE: Partial<ChaosOptionsInput> = {
  accounts: 150,
  workerKills: 3,
  midScheduleKills: 2,
  serverRestarts: 1,
  sandboxRestarts: 1,
  timeoutMinutes: 15,
};

export type ChaosAction =
  | { kind: 'kill_worker'; midSchedule: boolean }
  | { kind: 'restart_temporal' }
  | { kind: 'restart_sandbox' }
  | { kind: 'throttle_burst'; seconds: number; rate: number; retryAfterSeconds: number };

/** An action and when it fires: once this share of the run's accounts has an outcome. */
export interface PlannedAction {
  atShare: number;
  action: ChaosAction;
}

/**
 * The fault schedule, a pure function of the options (seed included): `--seed` replays it. Moments
 * are shares of accounts finished (not seconds), so a slower machine replays the same order.
 */
export function planChaos(o: ChaosOptions): PlannedAction[] {
  const prng = createPrng(o.seed);
  const at = (upTo = 0.85) => Math.round((0.05 + prng.next() * (upTo - 0.05)) * 1000) / 1000;
  const kills = Math.max(o.workerKills, 0);
  const aimed = new Set(prng.shuffle([...Array(kills).keys()]).slice(0, Math.min(o.midScheduleKills, kills)));
  const plan: PlannedAction[] = [];
  // Aimed kills in the first half: later, few accounts are left to schedule.
  for (let i = 0; i < kills; i++) plan.push({ atShare: aimed.has(i) ? at(0.5) : at(), action: { kind: 'kill_worker', midSchedule: aimed.has(i) } });
  for (let i = 0; i < o.serverRestarts; i++) plan.push({ atShare: at(), action: { kind: 'restart_temporal' } });
  for (let i = 0; i < o.sandboxRestarts; i++) plan.push({ atShare: at(), action: { kind: 'restart_sandbox' } });
  for (let i = 0; i < o.faults.throttleBursts; i++) {
    plan.push({
      atShare: at(),
      action: {
        kind: 'throttle_burst',
        seconds: o.faults.throttleBurstSeconds,
        rate: o.faults.throttleBurstRate,
        retryAfterSeconds: o.faults.retryAfterSeconds,
      },
    });
  }
  return plan.sort((a, b) => a.atShare - b.atShare);
}

export function describeAction(p: PlannedAction): string {
  const a = p.action;
  const when = `at ${(p.atShare * 100).toFixed(1)}%`;
  switch (a.kind) {
    case 'kill_worker':
      return `${when}: kill -9 a worker${a.midSchedule ? ' while a schedule call is in flight' : ''}`;
    case 'restart_temporal':
      return `${when}: kill -9 the Temporal server, restart it on the same database`;
    case 'restart_sandbox':
      return `${when}: kill -9 the sandbox process, restart it`;
    case 'throttle_burst':
      return `${when}: 429 burst (${Math.round(a.rate * 100)}% for ${a.seconds} s, Retry-After ${a.retryAfterSeconds} s)`;
  }
}
