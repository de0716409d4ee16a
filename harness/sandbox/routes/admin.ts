import type { FastifyInstance, FastifyReply } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { eventTargetsPatchSchema, faultsPatchSchema, type SandboxOptions } from '../options';
import { forcedOutcomesPatchSchema, type ForcedOutcomeStore } from '../forced-outcomes';
import { supplierPatchSchema, type SupplierStore } from '../suppliers';
import { groundTruth } from '../imports/store';
import { plantImportProcesses, removeAccount } from '../imports/census';
import { postImportGroundTruth } from '../post-import/store';
import { supplyGroundTruth } from '../supply/store';
import type { RuntimeState } from '../state';
import type { RequestWitness } from '../witness';

export interface AdminDeps {
  pool: pg.Pool;
  options: SandboxOptions;
  state: RuntimeState;
  suppliers: SupplierStore;
  forced: ForcedOutcomeStore;
  witness: RequestWitness;
  /** Restarts the fault PRNG streams from the seed option. */
  reseed(): void;
  /** Runs `fn` with the background loops stopped (TRUNCATE must not race a processing transaction). */
  whileLoopsPaused<T>(fn: () => Promise<T>): Promise<T>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Accounts "imported elsewhere" (by no client of this sandbox): named, or `count` numbered
 * `<prefix><n>` from `start` (default 1), `n` zero-padded to `digits` when given.
 */
export const plantSchema = z
  .object({
    supplier: z.string().min(1),
    state: z.enum(['imported', 'pending']).default('imported'),
    external_account_numbers: z.array(z.string().min(1).max(128)).max(1_000_000).optional(),
    prefix: z.string().min(1).max(100).optional(),
    count: z.number().int().min(1).max(2_000_000).optional(),
    start: z.number().int().min(0).default(1),
    digits: z.number().int().min(1).max(12).optional(),
  })
  .refine((b) => (b.external_account_numbers === undefined) !== (b.count === undefined || b.prefix === undefined), {
    message: 'either external_account_numbers, or prefix and count',
  });

const PLANT_BATCH = 10_000;

const eventsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
  after: z.coerce.number().int().min(0).default(0),
});

function invalid(reply: FastifyReply, error: z.ZodError) {
  return reply.code(400).send({
    detail: 'Invalid request body.',
    code: 'invalid',
    errors: error.issues.map((i) => ({ attr: i.path.join('.') || 'non_field_errors', code: 'invalid', detail: i.message })),
  });
}

function publicTargets(state: RuntimeState) {
  const { webhookUrl, sqsQueueUrl, webhookSecret, webhookApiKey } = state.targets;
  // The secret and the API key are write-only.
  return { webhookUrl: webhookUrl ?? null, sqsQueueUrl: sqsQueueUrl ?? null, webhookSecretSet: !!webhookSecret, webhookApiKeySet: !!webhookApiKey };
}

/** Operator and test API: loopback only, no auth, never subject to faults. */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.register(async (scope) => {
    scope.addHook('onRequest', async (req, reply) => {
      if (!LOOPBACK.has(req.socket.remoteAddress ?? ''))
        return reply.code(403).send({ detail: 'The admin API is served on loopback only.', code: 'permission_denied' });
    });

    scope.get('/admin/suppliers', async () => ({ suppliers: deps.suppliers.list() }));

    scope.put<{ Params: { code: string } }>('/admin/suppliers/:code', async (req, reply) => {
      const patch = supplierPatchSchema.safeParse(req.body ?? {});
      if (!patch.success) return invalid(reply, patch.error);
      return deps.suppliers.upsert(req.params.code, patch.data);
    });

    scope.get('/admin/faults', async () => deps.state.faults);
    scope.put('/admin/faults', async (req, reply) => {
      const patch = faultsPatchSchema.safeParse(req.body ?? {});
      if (!patch.success) return invalid(reply, patch.error);
      // Only the knobs the body names: zod fills the schema's defaults in for the others.
      const named = Object.keys(req.body as object);
      deps.state.faults = { ...deps.state.faults, ...Object.fromEntries(Object.entries(patch.data).filter(([k]) => named.includes(k))) };
      return deps.state.faults;
    });

    scope.get('/admin/event-targets', async () => publicTargets(deps.state));
    scope.put('/admin/event-targets', async (req, reply) => {
      const patch = eventTargetsPatchSchema.safeParse(req.body ?? {});
      if (!patch.success) return invalid(reply, patch.error);
      const next = { ...deps.state.targets };
      for (const [k, v] of Object.entries(patch.data) as Array<[keyof typeof next, string | null | undefined]>) {
        if (v === undefined) continue;
        if (v === null) delete next[k];
        else next[k] = v;
      }
      deps.state.targets = next;
      return publicTargets(deps.state);
    });

    scope.get('/admin/forced-outcomes', async () => deps.forced.list());
    scope.put('/admin/forced-outcomes', async (req, reply) => {
      const patch = forcedOutcomesPatchSchema.safeParse(req.body ?? {});
      if (!patch.success) return invalid(reply, patch.error);
      await deps.forced.apply(patch.data);
      return deps.forced.list();
    });

    scope.get<{ Querystring: { supplier?: string } }>('/admin/ground-truth', async (req) => {
      const accounts = await groundTruth(deps.pool, req.query.supplier || undefined);
      return { accounts, duplicates: accounts.filter((a) => a.created_count > 1).map((a) => a.external_identifier) };
    });

    // The census's counterparts: accounts the tenant holds that no client imported, and one it no longer holds.
    scope.post('/admin/import-processes/plant', async (req, reply) => {
      const body = plantSchema.safeParse(req.body ?? {});
      if (!body.success) return invalid(reply, body.error);
      const { supplier, state, external_account_numbers: named, prefix, count, start, digits } = body.data;
      const all = named ?? Array.from({ length: count! }, (_, i) => `${prefix}${String(start + i).padStart(digits ?? 0, '0')}`);
      let planted = 0;
      for (let i = 0; i < all.length; i += PLANT_BATCH)
        planted += await plantImportProcesses(deps.pool, { supplier, state, externals: all.slice(i, i + PLANT_BATCH) });
      return { planted };
    });
    scope.delete<{ Params: { supplier: string; external: string } }>('/admin/accounts/:supplier/:external', async (req, reply) => {
      const removed = await removeAccount(deps.pool, req.params.supplier, req.params.external);
      return removed ? { removed } : reply.code(404).send({ detail: 'No such account.', code: 'not_found' });
    });

    // How clients behaved under the request faults (Retry-After honoured, schedule calls cut off).
    scope.get('/admin/requests', async () => deps.witness.summary());
    scope.get<{ Querystring: { supplier?: string } }>('/admin/ground-truth/post-import', async (req) => {
      const items = await postImportGroundTruth(deps.pool, req.query.supplier || undefined);
      return { items, duplicates: items.filter((i) => i.created_count > 1) };
    });

    // The switch as the tenant holds it: each meter point sent a flow, its status and how many flows it was sent.
    scope.get<{ Querystring: { supplier?: string } }>('/admin/ground-truth/supply', async (req) => ({
      meterPoints: await supplyGroundTruth(deps.pool, req.query.supplier || undefined),
    }));

    scope.get('/admin/events', async (req, reply) => {
      const q = eventsQuerySchema.safeParse(req.query);
      if (!q.success) return invalid(reply, q.error);
      const r = await deps.pool.query<{ seq: number; body: string } & Record<string, unknown>>(
        `SELECT seq, id, type, import_supplier, external_identifier, status, dropped, duplicated, delivered_to, pending_targets,
                attempts, last_error, late_ms, created_at, body
         FROM sandbox.events WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [q.data.after, q.data.limit],
      );
      const events = r.rows.map(({ body, ...row }) => ({ ...row, seq: Number(row.seq), envelope: JSON.parse(body) as unknown }));
      return { events, last_seq: events.length ? events[events.length - 1].seq : q.data.after };
    });

    scope.post('/admin/reset', async () =>
      deps.whileLoopsPaused(async () => {
        await deps.pool.query(
          'TRUNCATE sandbox.post_import_items, sandbox.post_import_requests, sandbox.events, sandbox.accounts, sandbox.import_processes, sandbox.schedule_counts, sandbox.forced_outcomes, sandbox.import_suppliers, ' +
            'sandbox.retry_after_told, sandbox.early_requests, sandbox.witness_counts, sandbox.meter_point_registrations',
        );
        await deps.suppliers.seed(deps.options.suppliers, true);
        deps.forced.clearMemory();
        deps.witness.clearMemory();
        deps.reseed();
        deps.state.faults = { ...deps.options.faults };
        return { ok: true };
      }),
    );
  });
}
