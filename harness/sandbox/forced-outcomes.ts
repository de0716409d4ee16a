import type pg from 'pg';
import { z } from 'zod';
import { cohortSchema, type Cohort } from './supply/walk';

/** Operator-forced outcomes per external account number (`PUT /admin/forced-outcomes`). */
export const forcedErrorSchema = z
  .object({
    outcome: z.literal('error'),
    error_code: z.string().min(1).default('forced_error'),
    error_detail: z.string().default('Forced by the sandbox operator.'),
  })
  .strict();
export const forcedScheduleFailureSchema = z
  .object({
    fail_schedule_times: z.number().int().min(0),
    status: z.union([z.literal(429), z.number().int().min(500).max(599)]).default(500),
  })
  .strict();
/**
 * A window the tenant could not meet: the schedule is accepted as usual, but the import stays
 * PENDING until its `schedule_window_end` passes, then ends CANCELLED with a `cancelled` event (the
 * processor's expired path). With `drop_events`, no event of this account is delivered (recorded as
 * dropped), so a client learns the outcome only from the import status. The hold is fixed on each
 * import when it is scheduled: removing the entry later does not release imports already held.
 */
export const forcedHoldSchema = z
  .object({
    hold: z.literal(true),
    drop_events: z.boolean().default(false),
  })
  .strict();
/**
 * Keyed by MPxN, not account: the path a meter point's registration takes once a flow is sent
 * (sandbox/supply/walk.ts): `refuse` answers the flow with REGISTRATION_FLOW_ERROR and `error_detail`.
 */
export const forcedRegistrationSchema = z
  .object({
    registration: cohortSchema,
    error_detail: z.string().min(1).default('Current supplier not confirmed for this meter point.'),
  })
  .strict();
export const forcedOutcomeSchema = z.union([forcedErrorSchema, forcedScheduleFailureSchema, forcedHoldSchema, forcedRegistrationSchema]);
export type ForcedOutcome = z.infer<typeof forcedOutcomeSchema>;
/** `null` removes the entry. */
export const forcedOutcomesPatchSchema = z.record(z.string().min(1), forcedOutcomeSchema.nullable());

interface Entry {
  spec: ForcedOutcome;
  remaining: number | null;
}

/**
 * Kept in Postgres (a scenario survives a restart) and mirrored in memory, so schedule requests for
 * accounts without a forced outcome cost no query.
 */
export class ForcedOutcomeStore {
  private cache = new Map<string, Entry>();

  constructor(private readonly pool: pg.Pool) {}

  async load(): Promise<void> {
    const r = await this.pool.query<{ external_identifier: string; spec: ForcedOutcome; remaining: number | null }>(
      'SELECT external_identifier, spec, remaining FROM sandbox.forced_outcomes',
    );
    this.cache = new Map(r.rows.map((x) => [x.external_identifier, { spec: x.spec, remaining: x.remaining }]));
  }

  list(): Record<string, ForcedOutcome & { remaining?: number | null }> {
    const out: Record<string, ForcedOutcome & { remaining?: number | null }> = {};
    for (const [k, v] of this.cache) out[k] = 'fail_schedule_times' in v.spec ? { ...v.spec, remaining: v.remaining } : v.spec;
    return out;
  }

  async apply(patch: z.infer<typeof forcedOutcomesPatchSchema>): Promise<void> {
    for (const [ext, spec] of Object.entries(patch)) {
      if (spec === null) {
        await this.pool.query('DELETE FROM sandbox.forced_outcomes WHERE external_identifier = $1', [ext]);
        this.cache.delete(ext);
        continue;
      }
      const remaining = 'fail_schedule_times' in spec ? spec.fail_schedule_times : null;
      await this.pool.query(
        `INSERT INTO sandbox.forced_outcomes (external_identifier, spec, remaining) VALUES ($1, $2, $3)
         ON CONFLICT (external_identifier) DO UPDATE SET spec = EXCLUDED.spec, remaining = EXCLUDED.remaining, modified_at = now()`,
        [ext, JSON.stringify(spec), remaining],
      );
      this.cache.set(ext, { spec, remaining });
    }
  }

  /** The status to fail this schedule request with, consuming one of the N forced failures. */
  async takeScheduleFailure(ext: string): Promise<number | undefined> {
    const entry = this.cache.get(ext);
    if (!entry || !('fail_schedule_times' in entry.spec) || !entry.remaining) return undefined;
    const r = await this.pool.query<{ remaining: number }>(
      `UPDATE sandbox.forced_outcomes SET remaining = remaining - 1, modified_at = now()
       WHERE external_identifier = $1 AND remaining > 0 RETURNING remaining`,
      [ext],
    );
    if (r.rowCount === 0) {
      entry.remaining = 0;
      return undefined;
    }
    entry.remaining = r.rows[0].remaining;
    return entry.spec.status;
  }

  forcedError(ext: string): { error_code: string; error_detail: string } | undefined {
    const spec = this.cache.get(ext)?.spec;
    return spec && 'outcome' in spec ? { error_code: spec.error_code, error_detail: spec.error_detail } : undefined;
  }

  /** True when new imports of this account are held until their window ends. */
  holds(ext: string): boolean {
    const spec = this.cache.get(ext)?.spec;
    return spec !== undefined && 'hold' in spec;
  }

  /** True when this account's events are dropped (recorded, never delivered). */
  dropsEvents(ext: string): boolean {
    const spec = this.cache.get(ext)?.spec;
    return spec !== undefined && 'hold' in spec && spec.drop_events;
  }

  /** The forced path of this meter point's registration, when the operator set one. */
  registration(mpxn: string): { cohort: Cohort; errorDetail: string } | undefined {
    const spec = this.cache.get(mpxn)?.spec;
    return spec && 'registration' in spec ? { cohort: spec.registration, errorDetail: spec.error_detail } : undefined;
  }

  clearMemory(): void {
    this.cache.clear();
  }
}
