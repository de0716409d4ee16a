import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { MigrationRunArgs } from './inputs';
import type { WindowSpec } from './plan-windows';

// The cutover plan workflow's input and messages (workflows/cutover-plan.ts), defined once for it, its activities and the CLI.

export interface PlanWaveArgs {
  name: string;
  /** The wave's run, validated by the CLI with the run's own schema; started with dispatch held. */
  run: MigrationRunArgs;
  windows: WindowSpec[];
  dailyCap?: number;
  /** Accounts in its cohort when the CLI could count them (an accounts file), else undefined. */
  planned?: number;
  entrySignOff: boolean | string;
  exitSignOff: boolean | string;
  minReconciledRate?: number;
  /** The exit gate's supplier census (`max_platform_only`, `max_ledger_only`); absent: no census at the gate. */
  census?: { maxPlatformOnly: number | null; maxLedgerOnly: number | null };
  /** The exit gate's switch numbers (`min_on_supply_rate`, `max_days_to_supply`); absent: none. */
  supply?: { minOnSupplyRate: number | null; maxDaysToSupply: number | null };
  /** Waves (by name) it starts after; absent in plans started before `after` ran side by side: the one before it. */
  after?: string[];
  /**
   * dry_run_first: the trial load, the wave's run as a platform dry run (its runId a base: trial N
   * runs as `<base>-N`), and the entry gate's minimum pass rate.
   */
  trial?: { run: MigrationRunArgs; minPassRate?: number };
}

export interface PlanArgs {
  planId: string;
  name: string;
  timezone: string;
  waves: PlanWaveArgs[];
  /** How often the plan looks at its wave's run between window events. */
  pollSeconds: number;
  continueAsNewAtEvents: number;
  state?: PlanState;
}

export type WaveState =
  | 'pending'
  | 'dry_run'
  | 'dry_run_not_met'
  | 'waiting_entry_sign_off'
  | 'waiting_window'
  | 'running'
  | 'capped'
  | 'stopped_line'
  | 'out_of_windows'
  | 'waiting_supply'
  | 'exit_not_met'
  | 'waiting_exit_sign_off'
  | 'completed'
  | 'skipped'
  | 'cancelled';

/** The census the exit gate took, beside its maximums. */
export interface CensusGateStatus {
  taken_at: string;
  platform_only: number;
  ledger_only: number;
  max_platform_only: number | null;
  max_ledger_only: number | null;
}

/**
 * The switch's numbers the exit gate last read (the wave run's meter points in the ledger), beside its
 * rules: points read, on supply, still followed (no final state), and those followed for more than
 * `max_days_to_supply` days since their first read.
 */
export interface SupplyGateStatus {
  read_at: string;
  points: number;
  on_supply: number;
  waiting: number;
  over_max_days: number;
  on_supply_rate: number | null;
  min_on_supply_rate: number | null;
  max_days_to_supply: number | null;
}

export interface GateStatus {
  /** pending: a sign-off is required, not asked for yet (the wave has not reached the gate). */
  state: 'not_required' | 'pending' | 'waiting' | 'approved' | 'not_met';
  required_by: string | null;
  approved_by: string | null;
  approved_at: string | null;
  note: string | null;
}

export interface WaveAccounts {
  planned: number | null;
  started: number;
  completed: number;
  failed: number;
  not_attempted: number;
  in_flight: number;
}

/** The wave's trial loads (dry_run_first): each a dry run of the whole wave, the last one's pass rate deciding. */
export interface DryRunStatus {
  state: 'pending' | 'running' | 'passed' | 'not_met';
  runs: string[];
  accounts: WaveAccounts;
  /** Completed over accounts with an outcome, of the last trial load once it ended. */
  pass_rate: number | null;
  min_pass_rate: number | null;
}

/** One wave as `plan status --json` shows it. */
export interface WaveStatus {
  name: string;
  state: WaveState;
  /** The wave's runs: its trial loads (dry runs), then the real one. */
  runs: string[];
  after?: string[];
  dry_run?: DryRunStatus | null;
  accounts: WaveAccounts;
  windows: Array<{ start: string; end: string }>;
  next_window: { start: string; end: string } | null;
  daily_cap: number | null;
  started_today: number;
  stop_line: { tripped: boolean; reason: string | null };
  gates: {
    entry: GateStatus & { dry_run_pass_rate?: number | null; min_dry_run_pass_rate?: number | null };
    exit: GateStatus & {
      reconciled_rate: number | null;
      min_reconciled_rate: number | null;
      census?: CensusGateStatus | null;
      supply?: SupplyGateStatus | null;
    };
  };
}

export interface PlanState {
  current: number;
  cancelled: boolean;
  waves: Array<{
    state: WaveState;
    runStarted: boolean;
    /** Accounts the run had dispatched when the current local day began (for the daily cap). */
    day?: { day: string; base: number };
    bound?: { limit: number | null; until: number | null };
    /** dry_run_first: the trial load under way (N), whether its run was started, and whether another was asked for. */
    trial?: { n: number; started: boolean; again: boolean };
    status: WaveStatus;
  }>;
}

export interface PlanStatus {
  id: string;
  name: string;
  timezone: string;
  state: 'running' | 'completed' | 'cancelled';
  current_wave: string | null;
  waves: WaveStatus[];
}

export const planStatusQuery = defineQuery<PlanStatus>('planStatus');

export interface ApproveGateArgs {
  wave: string;
  gate: 'entry' | 'exit';
  by: string;
  note?: string;
}
/** A named person signs a wave's gate off; refused (with the reason) when the gate does not wait or its numbers are not met. */
export const approveGate = defineUpdate<WaveStatus, [ApproveGateArgs]>('approveGate');
export type PlanAction = 'resume' | 'skip' | 'cancel' | 'trial';
/**
 * resume: the wave's run (or trial load) after stop the line; skip: the wave (its run cancelled);
 * cancel: the plan; trial: another trial load of a wave at its entry gate (refused otherwise).
 */
export const controlPlan = defineUpdate<PlanStatus, [{ action: PlanAction; wave?: string }]>('controlPlan');
