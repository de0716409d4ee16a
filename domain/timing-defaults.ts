/** How long an account waits, by default: defined once (config, workflow inputs and the CLI read it). */
export const TIMING_DEFAULTS = {
  /** Wait for the outcome event before polling the import-status endpoint. */
  eventWaitSeconds: 60,
  /** Longest time an account waits for its outcome, polling with backoff. */
  pollMaxSeconds: 6 * 3600,
  /** How often a paused run or a parked account rechecks the supplier status without a signal. */
  supplierRecheckSeconds: 60,
  /** A switch's status reads (workflows/supply.ts): a switch takes days, so the first read after an hour, doubling to six. */
  supplyPollMinSeconds: 3600,
  supplyPollMaxSeconds: 6 * 3600,
} as const;
