import type { AccountOutcome } from './inputs';

/**
 * Stop the line: a run that keeps failing accounts on the platform (an import supplier set up wrong,
 * a tariff missing there) pauses its own dispatch instead of failing the whole cohort overnight.
 * Pure and deterministic (the run workflow folds every settled outcome through `observeOutcome`);
 * what it keeps is bounded by `overLast`, so it rides along continue-as-new.
 */

export interface StopLineThresholds {
  /** Trip when more than this share of the last `overLast` platform-side outcomes failed (0..1). */
  maxFailureRate: number;
  overLast: number;
  /** Trip when this many platform-side failures with one code come in a row. */
  maxSameCode: number;
}

export { STOP_LINE_DEFAULTS } from './stop-line-defaults';

/** How many sample accounts a trip names. */
export const STOP_LINE_SAMPLES = 5;

/**
 * Which side an outcome counts on. `data`: the team's data failed a local check (validation,
 * documents, the catalogue): counted apart, it never trips the line. `platform`: the platform
 * refused or errored it. `success`: created. `none`: never attempted (it says nothing about the platform).
 */
export type OutcomeSide = 'success' | 'platform' | 'data' | 'none';

export function sideOf(o: AccountOutcome): OutcomeSide {
  if (o.outcome === 'completed' || o.outcome === 'completed_with_differences') return 'success';
  if (o.outcome === 'not_attempted') return 'none';
  // A platform call that failed for good is recorded as a local activity failure with the platform's code.
  if (o.source === 'local' && !o.code?.startsWith('platform_')) return 'data';
  return 'platform';
}

export interface StopLineSample {
  externalAccountNumber: string;
  code: string;
}

export interface StopLineTrip {
  rule: 'max_same_code' | 'max_failure_rate';
  /** The code that tripped it (for a failure rate: the most frequent one in the window). */
  code: string;
  /** Failures in a row (max_same_code) or failures in the window (max_failure_rate). */
  count: number;
  /** Outcomes the count is over (max_failure_rate only). */
  over?: number;
  samples: StopLineSample[];
  message: string;
}

export interface StopLineState {
  /** The codes of the last `overLast` platform-side outcomes, oldest first ('' for a success). */
  recent: string[];
  /** The current run of platform-side failures with one code. */
  streak: { code: string; count: number };
  /** The last few platform-side failures (newest last). */
  samples: StopLineSample[];
  /** Local data errors and platform-side failures seen since the run started (never reset). */
  dataErrors: number;
  platformFailures: number;
  tripped?: StopLineTrip;
}

export function initialStopLine(): StopLineState {
  return { recent: [], streak: { code: '', count: 0 }, samples: [], dataErrors: 0, platformFailures: 0 };
}

/** One settled account into the state: a new state (the old one is left as it was). */
export function observeOutcome(s: StopLineState, o: AccountOutcome, t: StopLineThresholds): StopLineState {
  const side = sideOf(o);
  if (side === 'none') return s;
  if (side === 'data') return { ...s, dataErrors: s.dataErrors + 1 };
  if (side === 'success') return { ...s, recent: window([...s.recent, ''], t.overLast), streak: { code: '', count: 0 } };
  const code = o.code ?? 'import_error';
  return {
    ...s,
    recent: window([...s.recent, code], t.overLast),
    streak: { code, count: s.streak.code === code ? s.streak.count + 1 : 1 },
    samples: window([...s.samples, { externalAccountNumber: o.externalAccountNumber, code }], STOP_LINE_SAMPLES),
    platformFailures: s.platformFailures + 1,
  };
}

/** The newest `n` (n >= 1). */
function window<T>(xs: T[], n: number): T[] {
  return xs.slice(-n);
}

/** Whether the line stops now, and why. Same code in a row first: it names the cause most precisely. */
export function evaluateStopLine(s: StopLineState, t: StopLineThresholds): StopLineTrip | undefined {
  if (s.streak.count >= t.maxSameCode) {
    const { code, count } = s.streak;
    return {
      rule: 'max_same_code',
      code,
      count,
      // The streak is the newest platform failures: the samples' tail.
      samples: s.samples.slice(-count),
      message: `stop the line: ${count} platform-side failures in a row with code ${code} (max_same_code ${t.maxSameCode})`,
    };
  }
  if (s.recent.length < t.overLast) return undefined;
  const failed = s.recent.filter((c) => c !== '');
  if (failed.length / s.recent.length <= t.maxFailureRate) return undefined;
  const code = mostFrequent(failed);
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  return {
    rule: 'max_failure_rate',
    code,
    count: failed.length,
    over: s.recent.length,
    samples: s.samples,
    message: `stop the line: ${failed.length} of the last ${s.recent.length} platform-side outcomes failed (${pct(failed.length / s.recent.length)}, max_failure_rate ${pct(t.maxFailureRate)}); most often ${code}`,
  };
}

/** The most frequent of some codes (at least one); ties go to the one seen first. */
function mostFrequent(codes: string[]): string {
  const n = new Map<string, number>();
  for (const c of codes) n.set(c, (n.get(c) ?? 0) + 1);
  return [...n.entries()].reduce((best, x) => (x[1] > best[1] ? x : best))[0];
}

/** After `run resume`: a fresh window and streak (the operator has dealt with the cause); the counts stay. */
export function resetStopLine(s: StopLineState): StopLineState {
  return { ...initialStopLine(), dataErrors: s.dataErrors, platformFailures: s.platformFailures };
}
