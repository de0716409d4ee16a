import type pino from 'pino';
import type { Pool } from '../clients/db';
import { addRejectionCounts } from '../ledger';

/**
 * Deliveries refused before they were read, counted in the process (a counter per source kind and
 * reason), not written one row each: a flood of forged requests costs a map entry, not a flood of
 * inserts. Every `flushEveryMs` the counts since the last flush are added to
 * `migrate.rejection_counts` (one upsert per minute and reason; the inbox summary and the run
 * report read them) and logged in one line; `totals()` is what this process has refused since it
 * started.
 */
export class RejectionCounter {
  private readonly total = new Map<string, number>();
  private pending = new Map<string, { minute: Date; receivedVia: string; reason: string; count: number }>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly pool: Pool,
    private readonly logger: pino.Logger,
    private readonly now: () => number = Date.now,
  ) {}

  count(receivedVia: string, reason: string): void {
    const key = `${receivedVia}\u0000${reason}`;
    this.total.set(key, (this.total.get(key) ?? 0) + 1);
    const minute = new Date(Math.floor(this.now() / 60_000) * 60_000);
    const bucket = `${minute.getTime()}\u0000${key}`;
    const p = this.pending.get(bucket);
    if (p) p.count += 1;
    else this.pending.set(bucket, { minute, receivedVia, reason, count: 1 });
  }

  /** Counts since the process started, by reason (all source kinds). */
  totals(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [key, n] of this.total) {
      const reason = key.slice(key.indexOf('\u0000') + 1);
      out[reason] = (out[reason] ?? 0) + n;
    }
    return out;
  }

  start(flushEveryMs = 10_000): void {
    this.timer ??= setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  /** Adds the pending counts to the ledger; on failure they are kept for the next flush. */
  flush(): Promise<void> {
    this.flushing ??= (async () => {
      const batch = this.pending;
      if (batch.size === 0) return;
      this.pending = new Map();
      const rows = [...batch.values()];
      try {
        await addRejectionCounts(this.pool, rows);
      } catch (err) {
        for (const [k, r] of batch) {
          const p = this.pending.get(k);
          if (p) p.count += r.count;
          else this.pending.set(k, r);
        }
        this.logger.warn({ code: 'rejections_not_recorded', errName: (err as Error)?.name }, 'could not record the rejection counts; kept for the next flush');
        return;
      }
      const byReason: Record<string, number> = {};
      for (const r of rows) byReason[r.reason] = (byReason[r.reason] ?? 0) + r.count;
      this.logger.warn({ code: 'deliveries_rejected', rejected: byReason, sinceStart: this.totals() }, 'events receiver refused deliveries');
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }
}
