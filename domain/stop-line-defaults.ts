/** The thresholds stop-the-line uses unless told otherwise (domain/stop-line.ts; `--no-stop-line` switches it off). Apart so inputs.ts needs no more. */
export const STOP_LINE_DEFAULTS = { maxFailureRate: 0.5, overLast: 100, maxSameCode: 20 } as const;
