import type pg from 'pg';
import type pino from 'pino';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { signWebhookBody, WEBHOOK_SIGNATURE_HEADER } from '../../../clients/webhook-signature';
import type { EventTargets } from '../options';
import type { Prng } from '../prng';
import { configuredTargets, type RuntimeState, type TargetName } from '../state';
import { startLoop, type Loop } from '../loop';
import { buildEnvelope, type EnvelopeContext, type ImportEventPayload, type ImportEventType } from './envelope';

export interface EventMeta {
  importProcessId: number;
  importSupplier: string;
  externalIdentifier: string;
  /** Dropped whatever the drop rate (an operator-forced `drop_events`, sandbox/forced-outcomes.ts). */
  forceDrop?: boolean;
}

export interface OutboxDeps {
  pool: pg.Pool;
  sqs?: SQSClient;
  state: RuntimeState;
  prng: Prng;
  envelope: EnvelopeContext;
  logger: pino.Logger;
  pollIntervalMs: number;
  leaseMs: number;
  webhookRetryForMs: number;
  webhookTimeoutMs: number;
}

interface ClaimedEvent {
  seq: number;
  id: string;
  body: string;
  pending_targets: TargetName[];
  duplicated: boolean;
  attempts: number;
  age_ms: number;
}

/** A delivery's outcome, as the round writes it (sandbox.events' columns). */
interface Settled {
  seq: number;
  id: string;
  attempts: number;
  status: 'delivered' | 'failed' | 'pending';
  delivered: TargetName[];
  failed: TargetName[];
  backoff_ms: number;
  last_error: string | null;
}

const BATCH = 50;

/**
 * Events are written in the same transaction as the import's new status (an outbox), then
 * delivered by a loop: webhook (signed POST, retried with backoff for a bounded time) and/or SQS.
 * Fault knobs decide at emission whether an event is dropped, duplicated or delayed, and the loop
 * can hold and shuffle a window of due events (reorder). Every event is recorded, dropped or not.
 */
export class EventOutbox {
  private loop: Loop | undefined;

  constructor(private readonly deps: OutboxDeps) {}

  async emit<T extends ImportEventType>(client: pg.PoolClient, type: T, payload: ImportEventPayload<T>, meta: EventMeta): Promise<void> {
    const { faults, targets } = this.deps.state;
    const envelope = buildEnvelope(type, payload, this.deps.envelope, Date.now());
    const drawnDrop = this.deps.prng.chance(faults.eventDropRate);
    // The draws are made as without it, so a forced drop leaves the fault stream of other events as it was.
    const dropped = drawnDrop || meta.forceDrop === true;
    const duplicated = !drawnDrop && this.deps.prng.chance(faults.eventDuplicateRate) && !dropped;
    const lateMs =
      !drawnDrop && this.deps.prng.chance(faults.eventLateRate) && !dropped
        ? Math.round(faults.eventLateMinMs + this.deps.prng.next() * Math.max(0, faults.eventLateMaxMs - faults.eventLateMinMs))
        : 0;
    const pending = dropped ? [] : configuredTargets(targets);
    const status = dropped ? 'dropped' : pending.length ? 'pending' : 'no_target';
    await client.query(
      `INSERT INTO sandbox.events (id, type, import_process_id, import_supplier, external_identifier, body, status, dropped, duplicated, pending_targets, next_attempt_at, late_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + $11 * interval '1 millisecond', $12)`,
      [
        envelope.id,
        type,
        meta.importProcessId,
        meta.importSupplier,
        meta.externalIdentifier,
        JSON.stringify(envelope),
        status,
        dropped,
        duplicated,
        pending,
        faults.eventDelayMs + lateMs,
        lateMs,
      ],
    );
  }

  start(onError: (e: unknown) => void): void {
    this.loop = startLoop(() => this.tick(), this.deps.pollIntervalMs, onError);
  }

  wake(): void {
    this.loop?.wake();
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.loop = undefined;
  }

  /** One delivery round; true when more events may be due right away. */
  async tick(): Promise<boolean> {
    const { faults } = this.deps.state;
    let limit = BATCH;
    if (faults.eventReorder) {
      // Hold due events until a window fills (or the oldest has waited long enough), then shuffle it.
      const r = await this.deps.pool.query<{ n: number; oldest_ms: number | null }>(
        `SELECT count(*)::int AS n, (extract(epoch FROM now() - min(next_attempt_at)) * 1000)::float8 AS oldest_ms
         FROM sandbox.events WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())`,
      );
      const { n, oldest_ms } = r.rows[0];
      if (n === 0 || (n < faults.eventReorderWindow && (oldest_ms ?? 0) < faults.eventReorderHoldMs)) return false;
      limit = faults.eventReorderWindow;
    }
    const claimed = await this.deps.pool.query<ClaimedEvent>(
      `UPDATE sandbox.events e SET lease_until = now() + $2 * interval '1 millisecond', attempts = e.attempts + 1
       WHERE seq IN (
         SELECT seq FROM sandbox.events
         WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
         ORDER BY next_attempt_at, seq LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING seq, id, body, pending_targets, duplicated, attempts,
         (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_ms`,
      [limit, this.deps.leaseMs],
    );
    const events = claimed.rows.sort((a, b) => a.seq - b.seq);
    if (faults.eventReorder) this.deps.prng.shuffle(events);
    // Sequential on purpose: the order of delivery is what reorder is about. The round's outcomes
    // are written together (one statement, not one an event); the loop runs one round at a time,
    // so no other round can claim an event of this one before they are.
    const settled: Settled[] = [];
    try {
      for (const ev of events) settled.push(await this.deliver(ev));
    } finally {
      if (settled.length > 0) await this.record(settled);
    }
    return claimed.rowCount === limit;
  }

  private async record(settled: Settled[]): Promise<void> {
    await this.deps.pool.query(
      `UPDATE sandbox.events e SET status = u.status,
         delivered_to = e.delivered_to || array(SELECT jsonb_array_elements_text(u.delivered)),
         pending_targets = array(SELECT jsonb_array_elements_text(u.failed)),
         next_attempt_at = now() + u.backoff_ms * interval '1 millisecond', lease_until = NULL, last_error = u.last_error
       FROM jsonb_to_recordset($1::jsonb) AS u(seq bigint, status text, delivered jsonb, failed jsonb, backoff_ms int, last_error text)
       WHERE e.seq = u.seq`,
      [JSON.stringify(settled)],
    );
    for (const s of settled) if (s.status === 'failed') this.deps.logger.warn({ eventId: s.id, attempts: s.attempts }, 'event delivery gave up');
  }

  private async deliver(ev: ClaimedEvent): Promise<Settled> {
    const { targets } = this.deps.state;
    const copies = ev.duplicated ? 2 : 1;
    const delivered: TargetName[] = [];
    const failed: TargetName[] = [];
    const errors: string[] = [];
    for (const target of ev.pending_targets) {
      for (let i = 0; i < copies; i++) {
        const err = target === 'webhook' ? await this.sendWebhook(targets, ev.body) : await this.sendSqs(targets.sqsQueueUrl, ev.body);
        if (err) {
          errors.push(`${target}: ${err}`);
          if (!failed.includes(target)) failed.push(target);
          break;
        }
        delivered.push(target);
      }
    }
    const giveUp = failed.length > 0 && ev.age_ms >= this.deps.webhookRetryForMs;
    const status = failed.length === 0 ? 'delivered' : giveUp ? 'failed' : 'pending';
    const backoffMs = Math.min(250 * 2 ** (ev.attempts - 1), 10_000);
    return {
      seq: ev.seq,
      id: ev.id,
      attempts: ev.attempts,
      status,
      delivered,
      failed,
      backoff_ms: backoffMs,
      last_error: errors.length ? errors.join('; ').slice(0, 1000) : null,
    };
  }

  /** undefined on success, else a short reason. */
  private async sendWebhook(targets: EventTargets, body: string): Promise<string | undefined> {
    const { webhookUrl: url, webhookSecret: secret, webhookApiKeyHeader, webhookApiKey } = targets;
    if (!url) return 'target_removed';
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'kraken-sandbox-events/1' };
    if (secret) headers[WEBHOOK_SIGNATURE_HEADER] = signWebhookBody(secret, body, Math.floor(Date.now() / 1000));
    if (webhookApiKeyHeader && webhookApiKey) headers[webhookApiKeyHeader] = webhookApiKey;
    try {
      const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.deps.webhookTimeoutMs) });
      await res.arrayBuffer().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? undefined : `HTTP ${res.status}`;
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      return cause ?? (e as Error).name ?? 'network_error';
    }
  }

  private async sendSqs(queueUrl: string | undefined, body: string): Promise<string | undefined> {
    if (!queueUrl) return 'target_removed';
    if (!this.deps.sqs) return 'sqs_client_missing';
    try {
      await this.deps.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      return undefined;
    } catch (e) {
      return (e as Error).name || 'sqs_error';
    }
  }
}
