import type { Registry } from 'prom-client';
import { countHttpRequests } from '../metrics/http-requests';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { Config } from '../config';
import { endOverdueWaits, rematchPending } from './router';
import { temporalCompleter, temporalSignaller, type TemporalClientSource } from './signaller';
import { startSqsConsumer, type SqsConsumer } from './sqs-consumer';
import type { EventsDeps } from './types';
import { createWebhookApp } from './webhook';

/** The application_name of the receiver's Postgres connections. */
export const EVENTS_APPLICATION_NAME = 'events-receiver';

export interface EventsReceiverOptions {
  config: Config;
  pool: Pool;
  /** A client, or a lazy factory so the receiver can start before Temporal is reachable. */
  temporalClient: TemporalClientSource;
  logger: pino.Logger;
  sqs?: { client: SQSClient; queueUrl: string; waitTimeSeconds?: number };
  /** Development only: accept unsigned webhook deliveries when no secret is configured. */
  allowUnsigned?: boolean;
  rematchEveryMs?: number;
  rematchWithinMinutes?: number;
  /** Where its webhook's requests are counted (the process's metrics; absent: not counted). */
  metrics?: Registry;
}

export interface EventsReceiver {
  url: string;
  close(): Promise<void>;
}

/** Webhook on EVENTS_HOST (loopback by default), the SQS consumer when a queue is configured, and the rematch timer. */
export async function startEventsReceiver(opts: EventsReceiverOptions): Promise<EventsReceiver> {
  const { config, pool, logger } = opts;
  const deps: EventsDeps = { pool, logger, signal: temporalSignaller(opts.temporalClient), complete: temporalCompleter(opts.temporalClient) };

  const app = createWebhookApp(deps, { config, allowUnsigned: opts.allowUnsigned });
  if (opts.metrics) countHttpRequests(app, opts.metrics, 'events');
  const address = await app.listen({ port: config.EVENTS_PORT, host: config.EVENTS_HOST });

  let consumer: SqsConsumer | undefined;
  if (opts.sqs) {
    consumer = startSqsConsumer({ ...deps, sqs: opts.sqs.client }, { queueUrl: opts.sqs.queueUrl, waitTimeSeconds: opts.sqs.waitTimeSeconds });
  }

  let rematching: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (rematching) return;
    rematching = rematchPending(deps, { withinMinutes: opts.rematchWithinMinutes ?? 60 })
      .then(async (r) => {
        if (r.matched > 0) logger.info(r, 'rematched events');
        // Schedule activities whose event did not come in time (domain/event-wait.ts: EVENT_WAIT_SWEEP_SECONDS counts on this period).
        const ended = await endOverdueWaits(deps);
        if (ended > 0) logger.info({ ended }, 'event waits ran out; their workflows read the inbox and poll');
      })
      .catch((err) => logger.warn({ code: 'rematch_failed', errName: (err as Error)?.name }, 'rematch failed'))
      .finally(() => (rematching = undefined));
  }, opts.rematchEveryMs ?? 15_000);
  timer.unref();

  logger.info({ url: address, sqs: Boolean(opts.sqs) }, 'events receiver listening');
  return {
    url: address,
    async close() {
      clearInterval(timer);
      await consumer?.stop();
      await rematching;
      await app.close();
    },
  };
}
