import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * Where a meter point goes once its registration flow is accepted (sandbox/README.md, "The
 * switch"): a cohort, fixed when the flow is sent, walks it one status a step. The statuses are the
 * contract's `GbrMeterPointStatus` values; the paths are the sandbox's reading of the industry
 * process, which the reference does not spell out.
 */
export const COHORTS = ['supply', 'object', 'reject', 'unable', 'refuse'] as const;
export const cohortSchema = z.enum(COHORTS);
export type Cohort = z.infer<typeof cohortSchema>;

const PATHS: Record<Exclude<Cohort, 'refuse'>, readonly string[]> = {
  supply: ['REGISTRATION_REQUESTED', 'REGISTRATION_ACCEPTED', 'ON_SUPPLY'],
  object: ['REGISTRATION_REQUESTED', 'REGISTRATION_ACCEPTED', 'OBJECTION_RECEIVED', 'REGISTRATION_OBJECTED'],
  reject: ['REGISTRATION_REQUESTED', 'REGISTRATION_REJECTED'],
  unable: ['REGISTRATION_REQUESTED', 'UNABLE_TO_REGISTER'],
};

/** The status after `status` on the cohort's path; undefined at its end. */
export function nextStatus(cohort: Exclude<Cohort, 'refuse'>, status: string): string | undefined {
  const path = PATHS[cohort];
  const i = path.indexOf(status);
  return i >= 0 && i < path.length - 1 ? path[i + 1] : undefined;
}

export const FIRST_STATUS = 'REGISTRATION_REQUESTED';

/** A point whose registration ended refused: a new flow may start it again (as `run resend-registration` asks). */
export const ENDED_REFUSED = new Set(['REGISTRATION_OBJECTED', 'REGISTRATION_REJECTED', 'UNABLE_TO_REGISTER', 'REGISTRATION_WITHDRAWN']);

/** The lifecycle event a status change sends (platform-event-catalogue.md, "Supply lifecycle"); none for the steps between. */
export function lifecycleEventOf(status: string): 'requested' | 'completed' | 'cancelled' | undefined {
  if (status === FIRST_STATUS) return 'requested';
  if (status === 'ON_SUPPLY') return 'completed';
  if (ENDED_REFUSED.has(status)) return 'cancelled';
  return undefined;
}

export interface CohortRates {
  registrationRefuseRate: number;
  registrationObjectRate: number;
  registrationRejectRate: number;
}

/**
 * The cohort of a point without a forced one: deterministic per MPxN (a resend draws the same), the
 * rates taken in order refuse, object, reject; the rest go on supply.
 */
export function cohortByRate(mpxn: string, rates: CohortRates): Cohort {
  const u = createHash('sha256').update(`supply:${mpxn}`).digest().readUInt32BE(0) / 0x1_0000_0000;
  let edge = rates.registrationRefuseRate;
  if (u < edge) return 'refuse';
  edge += rates.registrationObjectRate;
  if (u < edge) return 'object';
  edge += rates.registrationRejectRate;
  if (u < edge) return 'reject';
  return 'supply';
}
