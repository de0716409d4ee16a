import { z } from 'zod';

/**
 * The switch's decisions, pure (workflows/supply.ts and activities/supply.ts ask them; the
 * mutation-testing scope holds them): which meter point status is final and what it means, whether a
 * point may be sent a registration flow, whether an account is on supply, and how long to wait
 * before reading the statuses again. The statuses are the contract's `GbrMeterPointStatus`.
 */

export const METER_POINT_STATUSES = [
  'PRE_REGISTRATION',
  'UNABLE_TO_REGISTER',
  'AREGI_SENT',
  'NOMINATION_SENT',
  'NOMINATION_REJECTED',
  'OFFER_RECEIVED',
  'OFFER_REJECTED',
  'REGISTRATION_REQUESTED',
  'REGISTRATION_ACCEPTED',
  'REGISTRATION_REJECTED',
  'WITHDRAWAL_REQUESTED',
  'REGISTRATION_WITHDRAWN',
  'OBJECTION_RECEIVED',
  'REGISTRATION_OBJECTED',
  'MTD_RECEIVED',
  'ON_SUPPLY',
  'OPENING_READ_DISPUTED',
  'MTD_DISPUTED',
  'METER_EXCHANGE_REQUESTED',
  'ERRONEOUS_GAIN_PROPOSED',
  'ERRONEOUS_GAIN_ACCEPTED',
  'ERRONEOUS_GAIN_REJECTED',
  'ERRONEOUS_GAIN_CANCELLED',
  'LOSS_REQUESTED_ERRONEOUS_GAIN',
  'LOSS_PENDING_ERRONEOUS_GAIN',
  'LOST_ERRONEOUS_GAIN',
  'ERRONEOUS_LOSS_PROPOSED',
  'ERRONEOUS_LOSS_ACCEPTED',
  'ERRONEOUS_LOSS_REJECTED',
  'ERRONEOUS_LOSS_CANCELLED',
  'ET_REQUESTED',
  'ET_ACCEPTED',
  'ET_LOSS_PENDING',
  'ET_COMPLETED',
  'ET_CANCELLED',
  'LOSS_REQUESTED',
  'LOSS_PENDING',
  'LOST',
  'DISCONNECTED',
  'ERRONEOUS_LOSS',
  'LOSS_OBJECTION_REQUESTED',
  'LOSS_OBJECTION_REMOVAL_REQUESTED',
  'LOSS_OBJECTION_ACCEPTED',
  'CLOSING_READ_DISPUTE',
  'DE-ENERGISED',
  'UNDERGOING_REGISTRATION',
  'REGISTRATION_AT_RISK',
  'GAIN_PENDING_DAP',
  'LOSS_PENDING_DAP',
] as const;
export type MeterPointStatus = (typeof METER_POINT_STATUSES)[number];

/** How a meter point's switch ended; a status with none is still on its way. */
export const FINAL_CLASSES = ['on_supply', 'objected', 'rejected', 'unable_to_register', 'withdrawn', 'erroneous_transfer', 'lost'] as const;
export const finalClassSchema = z.enum(FINAL_CLASSES);
export type FinalClass = z.infer<typeof finalClassSchema>;

/**
 * The final statuses and their classes. On supply: `ON_SUPPLY`, and the statuses a supplied point
 * moves to afterwards without leaving us (a disputed opening read or meter details, a meter exchange,
 * de-energised). Refused: objected, rejected (the registration, a nomination or an offer), unable to
 * register, withdrawn: a new flow may be sent for these once their cause is cleared. Erroneous
 * transfer: the transfer was completed as erroneous, or the point was lost through one. Lost: lost to
 * another supplier, or disconnected. Everything else (requested, accepted, an objection received, a
 * loss or an erroneous transfer pending or cancelled, pre-registration) is not final.
 */
const FINAL: Readonly<Partial<Record<MeterPointStatus, FinalClass>>> = {
  ON_SUPPLY: 'on_supply',
  OPENING_READ_DISPUTED: 'on_supply',
  MTD_DISPUTED: 'on_supply',
  METER_EXCHANGE_REQUESTED: 'on_supply',
  'DE-ENERGISED': 'on_supply',
  REGISTRATION_OBJECTED: 'objected',
  REGISTRATION_REJECTED: 'rejected',
  NOMINATION_REJECTED: 'rejected',
  OFFER_REJECTED: 'rejected',
  UNABLE_TO_REGISTER: 'unable_to_register',
  REGISTRATION_WITHDRAWN: 'withdrawn',
  ET_COMPLETED: 'erroneous_transfer',
  LOST_ERRONEOUS_GAIN: 'erroneous_transfer',
  ERRONEOUS_LOSS: 'erroneous_transfer',
  LOST: 'lost',
  DISCONNECTED: 'lost',
};

/** The class of a final status; undefined while the point is on its way (or the status is one the contract does not list). */
export function finalClassOf(status: string): FinalClass | undefined {
  return Object.hasOwn(FINAL, status) ? FINAL[status as MeterPointStatus] : undefined;
}

export function isFinalStatus(status: string): boolean {
  return finalClassOf(status) !== undefined;
}

const REFUSED: ReadonlySet<FinalClass> = new Set(['objected', 'rejected', 'unable_to_register', 'withdrawn']);
const REFUSED_STATUSES: ReadonlySet<string> = new Set(Object.entries(FINAL).flatMap(([status, c]) => (REFUSED.has(c) ? [status] : [])));

/** A switch that ended refused: the only kind an operator may send again. */
export function endedRefused(status: string): boolean {
  return REFUSED_STATUSES.has(status);
}

/** What the ledger knows of a point before its status is read. */
export interface FlowHistory {
  /** The platform answered REGISTRATION_FLOW_ERROR to the last flow sent for it. */
  flowRefused: boolean;
}

/**
 * Send a registration flow for this point now? Only a point the platform holds at
 * `PRE_REGISTRATION` whose flow was never refused, or, when the operator asks for a resend of that
 * status, one that ended refused or whose flow was refused. A point requested, accepted, on supply,
 * or anywhere else on its way never gets a second flow; a refused flow is not retried blindly.
 */
export function shouldSendFlow(status: string, history: FlowHistory, resend: ReadonlySet<string>): boolean {
  if (status === 'PRE_REGISTRATION') return !history.flowRefused || resend.has(status) || resend.has('REGISTRATION_FLOW_ERROR');
  return endedRefused(status) && resend.has(status);
}

/**
 * The account's flows are sent only when every one of its points should get one: the endpoint
 * marks the whole account, so one point in progress (or on supply, or lost) holds back the others
 * that want a flow (`held`). Nothing is sent for an account without points read.
 */
export function flowDecision(
  points: ReadonlyArray<{ mpxn: string; status: string; history: FlowHistory }>,
  resend: ReadonlySet<string>,
): { send: boolean; held: string[] } {
  const wanting = points.filter((p) => shouldSendFlow(p.status, p.history, resend));
  const send = wanting.length > 0 && wanting.length === points.length;
  return { send, held: send ? [] : wanting.map((p) => p.mpxn) };
}

export type AccountSupply = 'on_supply' | 'ended' | 'waiting';

/**
 * An account is on supply only when every one of its points is; it has ended when every point is
 * final (some not on supply); otherwise it waits. An account with no points read yet waits.
 */
export function accountSupplyOf(statuses: readonly string[]): AccountSupply {
  if (statuses.length === 0) return 'waiting';
  if (statuses.every((s) => finalClassOf(s) === 'on_supply')) return 'on_supply';
  return statuses.every(isFinalStatus) ? 'ended' : 'waiting';
}

/**
 * Where the tool left a point: its final class; `flow_refused`, a refused flow left for the operator;
 * `flow_held`, a point that wants a flow while another point of its account is on its way or supplied
 * (the endpoint sends the whole account's flows, so sending would send that one a second); undefined
 * while the tool follows it.
 */
export type PointOutcome = FinalClass | 'flow_refused' | 'flow_held';

export function pointOutcomeOf(status: string, history: FlowHistory): PointOutcome | undefined {
  const c = finalClassOf(status);
  if (c !== undefined) return c;
  return status === 'PRE_REGISTRATION' && history.flowRefused ? 'flow_refused' : undefined;
}

/**
 * The next wait between status reads: doubling from `min` up to `max` seconds while nothing
 * changes; back to `min` when a status changed or an event said something happened.
 */
export function nextPollSeconds(previous: number | undefined, changed: boolean, bounds: { min: number; max: number }): number {
  if (previous === undefined || changed) return bounds.min;
  return Math.min(bounds.max, Math.max(bounds.min, previous * 2));
}

/** The supply workflow's input (workflows/supply.ts): references only, never a payload. */
export const supplyFollowInputSchema = z.object({
  runId: z.string(),
  supplierCode: z.string(),
  externalAccountNumber: z.string(),
  accountNumber: z.string(),
  pollMinSeconds: z.number().positive(),
  pollMaxSeconds: z.number().positive(),
  /** Carried across continue-as-new. */
  state: z
    .object({
      reads: z.number().int(),
      delaySeconds: z.number().optional(),
      resend: z.array(z.string()),
      startedAt: z.number(),
    })
    .optional(),
});
export type SupplyFollowInput = z.infer<typeof supplyFollowInputSchema>;

/** One read of an account's switch, as the activity returns it to history: identifiers and statuses only. */
export interface SupplyRead {
  /** The tenant holds no meter points for the account (404): nothing to follow. */
  noMeterPoints: boolean;
  points: Array<{ mpxn: string; status: string; outcome?: PointOutcome }>;
  /** Flows sent by this read (the account's points), and points the platform refused. */
  sent: number;
  refused: number;
}

/** True when the tool has left every point (each has an outcome): the follow ends. */
export function followEnded(read: SupplyRead): boolean {
  return read.noMeterPoints || read.points.every((p) => p.outcome !== undefined);
}

/** Statuses an operator may send again (`run resend-registration --status`): a refused switch, or a refused flow. */
export const RESENDABLE_STATUSES: readonly string[] = [...METER_POINT_STATUSES.filter(endedRefused), 'REGISTRATION_FLOW_ERROR'];

/** A point as the operator's view shows it (`run supply`). */
export interface SupplyPointView {
  status: string;
  outcome: PointOutcome | null;
}

/**
 * The funnel of a switch: points by status and by where the tool left them, and accounts on supply
 * (every point), ended short of it (every point left), or still waiting.
 */
export function supplyFunnel(points: ReadonlyArray<SupplyPointView & { account: string }>): {
  points: number;
  byStatus: Record<string, number>;
  byOutcome: Record<string, number>;
  accounts: Record<AccountSupply, number>;
} {
  const byStatus: Record<string, number> = {};
  const byOutcome: Record<string, number> = {};
  const perAccount = new Map<string, Array<PointOutcome | null>>();
  for (const p of points) {
    byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;
    const o = p.outcome ?? 'waiting';
    byOutcome[o] = (byOutcome[o] ?? 0) + 1;
    perAccount.set(p.account, [...(perAccount.get(p.account) ?? []), p.outcome]);
  }
  // By where the tool left each point: a refused or held flow ends the account short of supply.
  const accounts: Record<AccountSupply, number> = { on_supply: 0, ended: 0, waiting: 0 };
  for (const outcomes of perAccount.values()) {
    const state: AccountSupply = outcomes.every((o) => o === 'on_supply') ? 'on_supply' : outcomes.every((o) => o !== null) ? 'ended' : 'waiting';
    accounts[state] += 1;
  }
  return { points: points.length, byStatus, byOutcome, accounts };
}
