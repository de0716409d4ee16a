import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AccountOutcome, ImportEventSignal, RunTotals, StopLineSettings, SupplierStatus } from './inputs';
import type { StopLineState } from './stop-line';
import type { SupplyRead } from './supply';

// Defined once, imported by workflows, the events router and the CLI.

/** Events router → account workflow: the platform reported the outcome of the scheduled import. */
export const importEventSignal = defineSignal<[ImportEventSignal]>('importEvent');
/** Operator → run, and run → accounts parked on the supplier: the supplier's status changed. */
export const supplierStatusSignal = defineSignal<[{ status: SupplierStatus }]>('supplierStatus');

/**
 * Plan → its wave's run: dispatch while `totals.dispatched < limit` and workflow time < `until`
 * (epoch ms; the window's end or the local midnight of a daily cap). `null`: no bound. Accounts in
 * flight always finish; the rest wait for the next signal, none is marked failed.
 */
export const dispatchLimitSignal = defineSignal<[{ limit: number | null; until: number | null }]>('dispatchLimit');

export const pauseRun = defineUpdate<RunProgress, [{ reason?: string }]>('pause');
export const resumeRun = defineUpdate<RunProgress, []>('resume');
/** Stops dispatching; accounts in flight finish; the rest are recorded as not attempted. */
export const cancelRun = defineUpdate<RunProgress, [{ reason?: string }]>('cancel');

export interface RunProgress {
  runId: string;
  supplierCode: string;
  dryRun: boolean;
  state: 'running' | 'paused' | 'waiting_on_supplier' | 'draining' | 'cancelled' | 'completed';
  inFlight: number;
  totals: RunTotals;
  exhausted: boolean;
  /** Stop the line: its thresholds and what it has seen; `state.tripped` says why the run paused itself. Absent in runs it does not watch. */
  stopLine?: { settings: StopLineSettings; state: StopLineState };
  /** Set when a cutover plan bounds the run's dispatch (dispatchLimitSignal). */
  dispatch?: { limit: number | null; until: number | null };
}
export const runProgressQuery = defineQuery<RunProgress>('progress');

export interface AccountProgress {
  stage: string;
  waitingOnSupplier: boolean;
  outcome?: AccountOutcome;
}
export const accountProgressQuery = defineQuery<AccountProgress>('accountProgress');
/** Operator → supply workflow: send flows again for points that ended in these statuses (their cause cleared). */
export const resendRegistrationSignal = defineSignal<[{ statuses: string[] }]>('resendRegistration');
/** Supply workflow → the account workflow that started it: its meter points as first read (the account's page names them). */
export const supplyPointsSignal = defineSignal<[{ points: SupplyRead['points'] }]>('supplyPoints');
