/**
 * How many accounts the tool keeps in processing at one tenant (docs/throughput.md, "Adaptive
 * throughput"): a window of permits shared by every worker and run of the tenant, moved by additive
 * increase and multiplicative decrease on the tenant's answers. The tenant documents only an optional
 * limit on accounts in processing at once, answered with 429 ("retry once other ongoing accounts
 * have finished"): a limit on a count, not a rate. A rate of schedule calls only meets that limit
 * through the processing time (in processing ≈ rate × processing time, Little's law), which the
 * client does not know and which changes; a window on the count itself is the limit's own unit, so
 * holding the window just under the limit holds the capacity (limit ÷ processing time) whatever the
 * processing time, and every account is asked at most once past the limit per decrease.
 *
 * A permit is taken before the schedule call, kept from an accepted call until the account's outcome
 * is recorded (the platform has finished with it), given back at once otherwise. When permits are
 * short, they go to the waiting accounts by priority, then by weight (the fairness key granted the
 * fewest permits for its weight, a lead bounded by a few windows), then first come: two runs of one
 * tenant share it by weight from the start.
 * Pure: the shared state lives in the ledger (ledger/platform-pace.ts); this decides its next value.
 */

export interface PaceParams {
  /** Permits never gone below (a tenant that refuses everything is still asked, one account at a time). */
  minWindow: number;
  /** The ceiling: PLATFORM_MAX_IN_PROCESSING. */
  maxWindow: number;
  /** The window a tenant is first met with. */
  initialWindow: number;
  /** The window is multiplied by this on a refusal. */
  decrease: number;
  /**
   * After a decrease, refusals for this long change nothing: they answer calls sent before the
   * decrease, not the new window.
   */
  holdMs: number;
  /** An accepted call slower than this does not widen the window (the tenant slowing down is the first sign of its limit). */
  slowLatencyMs: number;
}

export const DEFAULT_PACE: PaceParams = {
  minWindow: 1,
  maxWindow: 500,
  initialWindow: 4,
  // 0.95: the window swings between 0.95 and 1 of the limit; a refusal costs one account one more
  // call, once per cycle of limit × 5% × limit calls (5% of calls at a limit of 20, 1.3% at 80).
  // Simulated (test/unit/domain/platform-pace.test.ts) with the outcome known 0-0.5 s late: 0.94-1.0
  // of capacity; 0.9 gave 0.92-0.97 with half the refusals, too close to the 0.9 the issue asks.
  decrease: 0.95,
  holdMs: 1_000,
  slowLatencyMs: 5_000,
};

export interface PaceState {
  /** Accounts in processing allowed at once (fractional: grows by 1 / window per accepted call). */
  window: number;
  /** Still probing for the first refusal: the window grows by one per accepted call (doubles per processing time). */
  probing: boolean;
  /** Until then a refusal does not lower the window again (epoch ms; 0: no hold). */
  holdUntilMs: number;
}

export type PaceSignal =
  /**
   * `full`: the permit was taken when every other one was held (the window, not the callers, held
   * the account back). A call that found permits to spare says nothing about a wider window: the
   * window is not widened on it, or it would grow unused and let a burst through later.
   */
  | { kind: 'accepted'; latencyMs: number; full: boolean }
  /**
   * 429: the tenant's limit (retryAfterMs when it said how long to wait). `inProcessing`: this
   * tenant's accounts the client holds accepted permits for at that moment; the limit was reached
   * with them, so the window is no wider than that (the ledger's store counts them). `unanswered`:
   * permits granted whose calls have no answer recorded yet (this one left out); the tenant may have
   * taken them before this refusal, so they count against "fewer than half in processing".
   * `sentUnder`: the window when the refused call's permit was given. The acceptances of its round
   * recorded before it have widened the window since (while probing, by one each); the refusal
   * answers the narrower one.
   */
  | { kind: 'throttled'; retryAfterMs?: number; inProcessing?: number; unanswered?: number; sentUnder?: number }
  /** 5xx (retryAfterMs when it said how long to wait: a 503 may): counted, the window left as it is. */
  | { kind: 'server_error'; retryAfterMs?: number };

export function initialPace(p: PaceParams): PaceState {
  return { window: clamp(p.initialWindow, p), probing: true, holdUntilMs: 0 };
}

/** The next state after one answer of the tenant at `nowMs`. */
export function nextPace(s: PaceState, signal: PaceSignal, p: PaceParams, nowMs: number): PaceState {
  if (signal.kind === 'accepted') {
    if (!signal.full || signal.latencyMs > p.slowLatencyMs) return s;
    // Per accepted call: +1 while probing (a doubling per processing time), +1/window after (+1 per processing time).
    const window = s.probing ? s.window + 1 : s.window + 1 / s.window;
    return { ...s, window: clamp(window, p) };
  }
  // A 5xx says nothing of the limit on accounts in processing, and the account's own retry backoff
  // already slows its calls: narrowing on it let a 20% error rate (the chaos smoke) or an outage
  // hold the window at 1-2, from where it grows back one account per processing time.
  if (signal.kind === 'server_error') return s;
  // The tenant was full with `inProcessing` of ours: a window past that only draws more refusals
  // (probing overshoots by the calls answered in one round). Answers of one round are recorded in
  // any order: a refusal recorded before the acceptances sent beside it sees few in processing while
  // the tenant was full of ours, so those still unanswered are possibly in processing too.
  const seen = signal.inProcessing ?? Number.POSITIVE_INFINITY;
  const possibly = seen + (signal.unanswered ?? 0);
  // Within the hold a refusal answers a call sent before the decrease: the window is not decreased
  // again, but never left wider than the accounts possibly in processing. Left wider, a permit is
  // free while the tenant is full: the refused account gets it straight back and is refused again,
  // call after call, until the hold ends.
  if (nowMs < s.holdUntilMs) return { ...s, window: clamp(Math.min(s.window, possibly), p), probing: false };
  // A Retry-After longer than the hold is the tenant saying how long its answer stands.
  const holdMs = Math.max(p.holdMs, signal.retryAfterMs ?? 0);
  // Decreased from the window the call was sent under: from the wider one, a first round of 4 at a
  // limit of 3 whose 3 acceptances were recorded first (window 7) saw 3 in processing as "under half"
  // and probed again, overshooting once more.
  const decreased = Math.min(s.window, signal.sentUnder ?? Number.POSITIVE_INFINITY) * p.decrease;
  // Refused with less than half the window's accounts in processing: not the limit on accounts in
  // processing (a rate limit, a burst of 429s): the window narrows to them, and probes again from
  // there (a doubling per processing time up to the next refusal) rather than creeping back at one
  // account per processing time, which after a collapse to one would take hours to reach a wide window.
  // The test counts those possibly in processing; the narrowing keeps the lower count: it must end the overshoot.
  return { window: clamp(Math.min(decreased, seen), p), probing: possibly < decreased * REPROBE_BELOW, holdUntilMs: nowMs + holdMs };
}

/** A refusal with fewer in processing than this share of the (decreased) window sets probing again. */
const REPROBE_BELOW = 0.5;

function clamp(window: number, p: PaceParams): number {
  return Math.min(p.maxWindow, Math.max(p.minWindow, window));
}

/** A full window with nothing answered for at least this long (and twice the measured hold) lets one account through. */
export const PROBE_IDLE_MS = 30_000;

/**
 * Whether a window with no permit free lets one account through beyond it, to ask the tenant again.
 * A refusal narrows the window to the accounts in processing (`nextPace`); when those are ones the
 * tenant keeps for long (imports held to their window's end), no permit is freed and no call is
 * made, so no answer could ever widen it: the tenant would be left idle for as long as they are
 * held. Once the refusal's hold is over, no call is in flight and nothing was answered for
 * PROBE_IDLE_MS (or twice the usual hold, for a tenant that is slow, not stuck), one permit is given
 * (never past the ceiling the operator set):
 * accepted, it widens the window; refused, it narrows it and holds again (one refused call per idle spell).
 */
export function probesBeyondWindow(s: {
  free: number;
  /** Permits held now, and the ceiling (PLATFORM_MAX_IN_PROCESSING): the operator's bound, never passed by a probe. */
  held: number;
  ceiling: number;
  /** Permits granted whose call has no answer recorded yet. */
  unanswered: number;
  nowMs: number;
  holdUntilMs: number;
  /** When the tenant last answered a call of this window (its row's last update). */
  lastAnswerMs: number;
  /** How long an accepted account holds its permit (moving average), null before one was given back. */
  holdMs: number | null;
}): boolean {
  if (s.free > 0 || s.unanswered > 0 || s.held >= s.ceiling || s.nowMs < s.holdUntilMs) return false;
  return s.nowMs - s.lastAnswerMs >= Math.max(PROBE_IDLE_MS, 2 * (s.holdMs ?? 0));
}

/** Whole permits the window allows now beyond those held (never negative). */
export function freePermits(window: number, held: number): number {
  return Math.max(0, Math.floor(window) - held);
}

/** An account waiting for a permit, with what its workflow's start said (inherited by its activities). */
export interface Waiter {
  holder: string;
  /** Temporal's priorityKey: lower goes first (1 = reruns, 3 = the default bulk). */
  priorityKey: number;
  fairnessKey: string;
  /** Temporal's fairnessWeight (1 when not set). */
  weight: number;
  /** Epoch ms since it waits (kept across its activity's attempts). */
  sinceMs: number;
}

/**
 * Which waiting accounts get the `free` permits: the lowest priorityKey first; within it, one at a
 * time to the fairness key granted the fewest permits for its weight (`granted` ÷ weight, counting
 * those given in this round: see `capLeads` for what `granted` counts), ties to the key that has
 * waited longest; within a key, first come. Counted by permits granted, not held now: a permit, once
 * the tenant accepted its account, is held for the whole processing time, so a key that reached the
 * window first holds it all for one processing time; counted by held, that lead was never paid back
 * (2.3 : 1 instead of 3 : 1 at the 200th account); counted by granted, the other key gets the next
 * permits until the shares are even again.
 */
export function choosePermitHolders(free: number, waiters: readonly Waiter[], grantedByKey: ReadonlyMap<string, number>): string[] {
  // Stryker disable next-line EqualityOperator: equivalent (holders are unique: never equal)
  const queue = [...waiters].sort((a, b) => a.priorityKey - b.priorityKey || a.sinceMs - b.sinceMs || (a.holder < b.holder ? -1 : 1));
  const granted = new Map(grantedByKey);
  const chosen: string[] = [];
  while (chosen.length < free && queue.length > 0) {
    const top = queue[0].priorityKey;
    let best = 0;
    for (let i = 1; i < queue.length && queue[i].priorityKey === top; i++) {
      if (share(queue[i], granted) < share(queue[best], granted)) best = i;
    }
    const [w] = queue.splice(best, 1);
    chosen.push(w.holder);
    granted.set(w.fairnessKey, (granted.get(w.fairnessKey) ?? 0) + 1);
  }
  return chosen;
}

function share(w: Waiter, granted: ReadonlyMap<string, number>): number {
  return (granted.get(w.fairnessKey) ?? 0) / w.weight;
}

/**
 * How much of a lead is paid back, in windows of the leader's own permits: a run whose accounts
 * reach the window up to this many processing times before another's gives that lead back in full.
 * Measured: two runs started together reach the window 11–20 s apart under load (the second run's
 * workflows start while the first's already schedule), 1.4–2.5 processing times of 8 s; one window
 * left 2.13 : 1 at the 200th account. More windows would hold a long-alone cohort back for longer
 * when a newcomer arrives (see capLeads).
 */
export const FAIR_LEAD_WINDOWS = 3;

/**
 * What `granted` counts, per fairness key: permits granted to it, each lead over the other keys
 * waiting now bounded by FAIR_LEAD_WINDOWS windows of the leader's own permits. Among the keys with
 * accounts waiting, the lowest share (granted ÷ weight) is the floor; a key's count is lowered to
 * at most floor × its weight + FAIR_LEAD_WINDOWS × `window`. Why a bound of a few windows: a window
 * is what one processing time of a head start gives a run (it holds the whole window until its
 * first accounts finish), and that much is paid back in full, so two runs started a little apart
 * still finish 3 : 1 from the start. Why bounded: a cohort that has had the tenant alone for days
 * (100,000 accounts granted) is not then held back until a newcomer has been granted as many: its
 * lead counts as three windows, paid back by the newcomer's next (newcomer's weight ÷ its weight)
 * × three windows of permits (three processing times for equal weights), then they share by weight.
 * The reverse too: a key that waited long without being granted (a paused run, a key gone and back)
 * is owed at most that much. A key not waiting now is left as it is (it does not compete). Returns
 * the counts to store (a waiting key never granted one at 0).
 */
export function capLeads(grantedByKey: ReadonlyMap<string, number>, waiters: readonly Waiter[], window: number): Map<string, number> {
  const weights = new Map<string, number>();
  for (const w of waiters) weights.set(w.fairnessKey, w.weight);
  const granted = new Map(grantedByKey);
  let floor = Number.POSITIVE_INFINITY;
  for (const [key, weight] of weights) floor = Math.min(floor, (granted.get(key) ?? 0) / weight);
  for (const [key, weight] of weights) granted.set(key, Math.min(granted.get(key) ?? 0, floor * weight + FAIR_LEAD_WINDOWS * Math.floor(window)));
  return granted;
}

/**
 * One worker's round of a grant (ledger/platform-pace.ts, under the tenant's lock): the `free`
 * permits go by priority and share among every worker's fresh `waiters`; this worker hands out only
 * those chosen of its own (`mine`: holder → fairness key), each counted to its key's share. Returns
 * them, the share counts that changed (to store), and `full`: the window, not the callers, held
 * accounts back (as many waiting as it let through, or more).
 */
export function grantRound(args: {
  free: number;
  window: number;
  waiters: readonly Waiter[];
  shares: ReadonlyMap<string, number>;
  mine: ReadonlyMap<string, string>;
}): { given: string[]; changed: Array<[string, number]>; full: boolean } {
  const { free, window, waiters, shares, mine } = args;
  const granted = capLeads(shares, waiters, window);
  const given = choosePermitHolders(free, waiters, granted).filter((h) => mine.has(h));
  for (const h of given) {
    const key = mine.get(h)!;
    granted.set(key, (granted.get(key) ?? 0) + 1);
  }
  return { given, changed: [...granted].filter(([k, n]) => shares.get(k) !== n), full: waiters.length >= free };
}

/** The share of schedule calls the tenant refused (0 when none were made). */
export function throttledShare(accepted: number, throttled: number): number {
  const total = accepted + throttled;
  return total === 0 ? 0 : throttled / total;
}

/**
 * Little's law: accounts a second the window lets through, given how long an account holds its
 * permit (the platform's processing time as measured from its own answers); null before any is known.
 */
export function windowThroughput(window: number, holdMs: number | null): number | null {
  const ms = Number(holdMs); // null: 0
  return ms > 0 ? window / (ms / 1000) : null;
}

/** The tenant's window as `run status`, the watch line and the run's UI page show it (no personal data: counts only). */
export interface PaceView {
  mode: 'fixed' | 'adaptive';
  /** Accounts in processing the window allows now (adaptive; null before the tenant was first met, or fixed). */
  window: number | null;
  /** Permits held now: accounts being scheduled or in processing at the tenant. */
  held: number;
  /** The window's ceiling (PLATFORM_MAX_IN_PROCESSING). */
  ceiling: number;
  /** Schedule calls answered so far (accepted and refused, every run of the tenant). */
  calls: number;
  throttledShare: number;
  /** How long an accepted account held its permit (ms, moving average; null before any). */
  holdMs: number | null;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** One line: the window, what it lets through (Little's law) and the share of schedule calls refused. */
export function paceLine(v: PaceView): string {
  if (v.mode === 'fixed') return 'Platform pace: fixed (each run keeps its --concurrency in flight; PLATFORM_PACE=adaptive finds the tenant’s limit)';
  if (v.window === null) return `Platform window: adaptive, no schedule call yet (ceiling ${v.ceiling} in processing)`;
  const through = windowThroughput(Math.floor(v.window), v.holdMs);
  const rate = through === null ? '' : `, ≈ ${through.toFixed(2)} accounts/s at ${(v.holdMs! / 1000).toFixed(1)} s each`;
  return (
    `Platform window: adaptive, ${Math.floor(v.window)} accounts in processing at once (${v.held} now; ceiling ${v.ceiling})${rate}, ` +
    `throttled ${pct(v.throttledShare)} of ${v.calls} schedule calls (every run of this tenant)`
  );
}

/** The watch line's part: window and throttled share (adaptive only). */
export function paceWatchPart(v: PaceView | undefined): string {
  if (!v || v.mode !== 'adaptive' || v.window === null) return '';
  return ` · window ${Math.floor(v.window)} (${v.held} in processing), throttled ${pct(v.throttledShare)}`;
}

/** A permit held now, as the sweep of long-held permits sees it: how long it has been held. */
export interface HeldFor {
  heldMs: number;
}

/**
 * Which held permits the sweep asks Temporal about (docs/throughput.md, "Adaptive throughput"):
 * those held longer than an account normally holds one (`olderThanMs`, or three times the measured
 * hold if longer: a slow tenant's accounts in processing are not suspects), at most `batch`, the
 * oldest first (the likeliest to be orphans, and the first to be freed if the batch is short).
 */
export function permitsToCheck<P extends HeldFor>(held: readonly P[], holdMs: number | null, opts: { olderThanMs: number; batch: number }): P[] {
  const after = Math.max(opts.olderThanMs, 3 * Number(holdMs)); // null: 0
  return held
    .filter((p) => p.heldMs > after)
    .sort((a, b) => b.heldMs - a.heldMs)
    .slice(0, opts.batch);
}

/** What Temporal said of a permit holder's account workflow. */
export type WorkflowAnswer =
  /** `describe` answered with the workflow's status (RUNNING, TERMINATED, TIMED_OUT, COMPLETED…). */
  | { kind: 'status'; status: string }
  /** Temporal does not know the workflow (gone past retention, or never started). */
  | { kind: 'not-found' }
  /** Temporal could not be asked, or answered otherwise: nothing is known. */
  | { kind: 'no-answer' };

/**
 * Whether the sweep gives the permit back: only when Temporal says the account workflow no longer
 * runs (closed, or not known to it). Such an account never records an outcome, so nothing else frees
 * its permit before its lease ends. No answer keeps it: freeing a running account's permit would let
 * one account too many into processing.
 */
export function sweepFrees(answer: WorkflowAnswer): boolean {
  if (answer.kind === 'not-found') return true;
  return answer.kind === 'status' && answer.status !== 'RUNNING';
}
