import { DateTime } from 'luxon';

/** One wave of the plan under chaos: its accounts, its windows (instants), its daily cap. */
export interface PlanWaveTruth {
  name: string;
  accounts: string[];
  windows: Array<{ start: number; end: number }>;
  dailyCap?: number;
}

export interface PlanLedgerRow {
  outcome: string | null;
  /** When the run dispatched the account (the ledger's clock), null when never dispatched. */
  startedAt: number | null;
}

export interface PlanPlatformRow {
  createdCount: number;
  /** When the platform opened each import for the account (the sandbox's own clock). */
  scheduledAt: number[];
}

export interface PlanWindowsVerdict {
  /** Accounts with no recorded outcome. */
  lost: string[];
  /** Accounts the platform created more than once. */
  duplicated: string[];
  /** Dispatched (ledger) outside every window of its wave. */
  dispatchedOutside: string[];
  /** Scheduled with the platform (sandbox) before its wave's window opened, or after it closed by more than the in-flight grace. */
  scheduledOutside: string[];
  /** `wave day dispatched|scheduled count` where a wave's accounts dispatched (ledger) or scheduled (sandbox) on one local day exceed its daily cap. */
  overCap: string[];
  /** Recorded `not_attempted` although the platform saw a schedule for it. */
  notAttemptedButScheduled: string[];
  /** Per wave, accounts the platform saw scheduled per local day. */
  perDay: Record<string, Record<string, number>>;
  /** Per wave, accounts the run dispatched per local day (the cap counts these: a local data error is dispatched, never scheduled). */
  dispatchedPerDay: Record<string, Record<string, number>>;
}

/**
 * The windows-and-caps verdict of a plan under chaos, from the ledger's and the sandbox's own
 * records only. An account dispatched just before a window's end may reach the platform just after
 * it (accounts in flight finish): `graceMs` bounds how long after.
 */
export function judgePlanWindows(input: {
  waves: PlanWaveTruth[];
  zone: string;
  ledger: Map<string, PlanLedgerRow>;
  platform: Map<string, PlanPlatformRow>;
  graceMs: number;
}): PlanWindowsVerdict {
  const v: PlanWindowsVerdict = {
    lost: [],
    duplicated: [],
    dispatchedOutside: [],
    scheduledOutside: [],
    overCap: [],
    notAttemptedButScheduled: [],
    perDay: {},
    dispatchedPerDay: {},
  };
  const dayOf = (t: number) => DateTime.fromMillis(t, { zone: input.zone }).toFormat('yyyy-MM-dd');
  for (const w of input.waves) {
    const days: Record<string, number> = {};
    const dispatchedDays: Record<string, number> = {};
    for (const a of w.accounts) {
      const row = input.ledger.get(a);
      const p = input.platform.get(a);
      const scheduled = p?.scheduledAt ?? [];
      if (!row?.outcome) v.lost.push(a);
      if ((p?.createdCount ?? 0) > 1) v.duplicated.push(a);
      if (row?.outcome === 'not_attempted' && scheduled.length > 0) v.notAttemptedButScheduled.push(a);
      if (row?.startedAt != null && !w.windows.some((x) => row.startedAt! >= x.start && row.startedAt! < x.end)) v.dispatchedOutside.push(a);
      if (scheduled.some((t) => !w.windows.some((x) => t >= x.start && t < x.end + input.graceMs))) v.scheduledOutside.push(a);
      for (const t of scheduled) days[dayOf(t)] = (days[dayOf(t)] ?? 0) + 1;
      if (row?.startedAt != null) dispatchedDays[dayOf(row.startedAt)] = (dispatchedDays[dayOf(row.startedAt)] ?? 0) + 1;
    }
    v.perDay[w.name] = days;
    v.dispatchedPerDay[w.name] = dispatchedDays;
    const cap = w.dailyCap ?? Number.POSITIVE_INFINITY;
    for (const [day, n] of Object.entries(dispatchedDays)) if (n > cap) v.overCap.push(`${w.name} ${day} dispatched ${n}`);
    for (const [day, n] of Object.entries(days)) if (n > cap) v.overCap.push(`${w.name} ${day} scheduled ${n}`);
  }
  return v;
}

export function planWindowsPassed(v: PlanWindowsVerdict): boolean {
  return (
    v.lost.length === 0 &&
    v.duplicated.length === 0 &&
    v.dispatchedOutside.length === 0 &&
    v.scheduledOutside.length === 0 &&
    v.overCap.length === 0 &&
    v.notAttemptedButScheduled.length === 0
  );
}
