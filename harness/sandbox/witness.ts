import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';

/**
 * The sandbox as a witness of how clients behave under faults (what a chaos run's verdict reads):
 * - Retry-After: every 429 is remembered per account (supplier + external id) with the moment it
 *   was told; a request about that account arriving before then is recorded as early.
 * - Schedule calls in flight, and those whose client went away before the answer was written
 *   (a worker killed mid-call), and answers the `responseLostRate` fault swallowed.
 * Retry-After and the counters live in Postgres so they survive a sandbox restart; the in-flight
 * count is this process's own.
 */
export class RequestWitness {
  private readonly retryAt = new Map<string, { toldAt: number; retryAt: number }>();
  private inFlight = 0;
  /** Client ports of the schedule calls in flight (a chaos harness finds the process that holds one). */
  private readonly inFlightPorts = new Map<FastifyReply, number>();
  private readonly lostByUs = new WeakSet<FastifyReply>();

  constructor(private readonly pool: pg.Pool) {}

  async load(): Promise<void> {
    const r = await this.pool.query<{ account_key: string; told_at: Date; retry_at: Date }>(
      'SELECT account_key, told_at, retry_at FROM sandbox.retry_after_told WHERE retry_at > now()',
    );
    for (const row of r.rows) this.retryAt.set(row.account_key, { toldAt: row.told_at.getTime(), retryAt: row.retry_at.getTime() });
  }

  clearMemory(): void {
    this.retryAt.clear();
  }

  /** Records the request as early when the account was told to wait longer. */
  async arrived(key: string | undefined, method: string, path: string, now = Date.now()): Promise<void> {
    if (!key) return;
    const told = this.retryAt.get(key);
    if (!told) return;
    if (now >= told.retryAt) {
      this.retryAt.delete(key);
      return;
    }
    await this.pool.query(
      `INSERT INTO sandbox.early_requests (account_key, method, path, told_at, retry_at, arrived_at)
       VALUES ($1, $2, $3, to_timestamp($4::float8 / 1000), to_timestamp($5::float8 / 1000), to_timestamp($6::float8 / 1000))`,
      [key, method, path.slice(0, 300), told.toldAt, told.retryAt, now],
    );
  }

  /** A 429 with `Retry-After: retryAfterSeconds` is being sent about this account. */
  async throttled(key: string | undefined, retryAfterSeconds: number, now = Date.now()): Promise<void> {
    await this.count('throttled');
    await this.told(key, retryAfterSeconds, now);
  }

  private async told(key: string | undefined, retryAfterSeconds: number, now: number): Promise<void> {
    if (!key) return;
    const retryAt = now + retryAfterSeconds * 1000;
    this.retryAt.set(key, { toldAt: now, retryAt });
    await this.pool.query(
      `INSERT INTO sandbox.retry_after_told (account_key, told_at, retry_at) VALUES ($1, to_timestamp($2::float8 / 1000), to_timestamp($3::float8 / 1000))
       ON CONFLICT (account_key) DO UPDATE SET told_at = EXCLUDED.told_at, retry_at = EXCLUDED.retry_at`,
      [key, now, retryAt],
    );
  }

  /**
   * A schedule call refused by the tenant's concurrency limit (counted apart from the fault
   * injection's throttles); with a Retry-After, remembered as any 429's is.
   */
  async limited(key: string | undefined, retryAfterSeconds: number | null, now = Date.now()): Promise<void> {
    await this.count('concurrency_limited');
    if (retryAfterSeconds !== null) await this.told(key, retryAfterSeconds, now);
  }

  /**
   * Follows one schedule call from its arrival (before any injected latency): counts it in flight
   * until the connection closes, and as `client_gone_schedule` when the client went away before an
   * answer was written, unless the sandbox itself dropped it (`responseLost`).
   */
  trackSchedule(reply: FastifyReply): void {
    this.inFlight += 1;
    const port = reply.request.socket.remotePort;
    if (port) this.inFlightPorts.set(reply, port);
    reply.raw.once('close', () => {
      this.inFlight -= 1;
      this.inFlightPorts.delete(reply);
      if (!reply.raw.writableFinished && !this.lostByUs.has(reply)) void this.count('client_gone_schedule').catch(() => undefined);
    });
  }

  /** The `responseLostRate` fault swallowed this answer. */
  responseLost(reply: FastifyReply): void {
    this.lostByUs.add(reply);
    void this.count('response_lost').catch(() => undefined);
  }

  async count(name: string): Promise<void> {
    await this.pool.query(`INSERT INTO sandbox.witness_counts (name, n) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET n = sandbox.witness_counts.n + 1`, [
      name,
    ]);
  }

  async summary() {
    const counts = await this.pool.query<{ name: string; n: string }>('SELECT name, n FROM sandbox.witness_counts');
    const n = (name: string) => Number(counts.rows.find((r) => r.name === name)?.n ?? 0);
    const early = await this.pool.query<{ account_key: string; method: string; path: string; told_at: Date; retry_at: Date; arrived_at: Date }>(
      'SELECT account_key, method, path, told_at, retry_at, arrived_at FROM sandbox.early_requests ORDER BY seq LIMIT 100',
    );
    const earlyCount = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sandbox.early_requests');
    return {
      inFlightSchedules: this.inFlight,
      inFlightSchedulePorts: [...this.inFlightPorts.values()],
      clientGoneSchedules: n('client_gone_schedule'),
      responseLost: n('response_lost'),
      throttled: n('throttled'),
      concurrencyLimited: n('concurrency_limited'),
      early: earlyCount.rows[0].n,
      earlyRequests: early.rows.map((r) => ({
        accountKey: r.account_key,
        method: r.method,
        path: r.path,
        toldAt: r.told_at.toISOString(),
        retryAt: r.retry_at.toISOString(),
        arrivedAt: r.arrived_at.toISOString(),
      })),
    };
  }
}

/** The account a data-import request is about: `<supplier>/<external id>` from the path or the body. */
export function accountKeyOf(req: FastifyRequest): string | undefined {
  const params = req.params as Record<string, unknown> | undefined;
  if (params && typeof params.import_supplier_code === 'string' && typeof params.external_identifier === 'string') {
    return `${params.import_supplier_code}/${params.external_identifier}`;
  }
  const body = req.body as { payload?: { import_supplier?: unknown; external_account_number?: unknown } } | undefined;
  const p = body && typeof body === 'object' ? body.payload : undefined;
  if (p && typeof p === 'object' && typeof p.import_supplier === 'string' && typeof p.external_account_number === 'string') {
    return `${p.import_supplier}/${p.external_account_number}`;
  }
  return undefined;
}
