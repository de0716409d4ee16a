import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { ingestEvent } from './ingest';
import type { EventsDeps } from './types';

export interface SqsConsumerDeps extends EventsDeps {
  sqs: SQSClient;
}

export interface SqsConsumerOptions {
  queueUrl: string;
  waitTimeSeconds?: number;
  batchSize?: number;
  /** Pause after a failed receive (queue unreachable). */
  errorBackoffMs?: number;
  /**
   * Pause after a batch that was not full, so the next receive finds more than one message: the
   * platform's events come one at a time, and each receive and delete call costs the receiver (and
   * the queue) about as much for one message as for ten. Events wait at most this much longer.
   */
  gatherMs?: number;
}

export interface SqsConsumer {
  /** Stops receiving, finishes the messages in hand, resolves when the loop has ended. */
  stop(): Promise<void>;
  /** Messages recorded and deleted so far. */
  readonly processed: number;
}

/**
 * Long-polls the queue EventBridge delivers to. A message is deleted only once it is in the
 * inbox (or rejected for good); a message that could not be recorded stays for redelivery.
 */
export function startSqsConsumer(deps: SqsConsumerDeps, opts: SqsConsumerOptions): SqsConsumer {
  const { sqs, logger } = deps;
  const waitTimeSeconds = opts.waitTimeSeconds ?? 10;
  const batchSize = opts.batchSize ?? 10;
  const backoffMs = opts.errorBackoffMs ?? 2_000;
  const gatherMs = opts.gatherMs ?? 200;
  const abort = new AbortController();
  let stopping = false;
  let processed = 0;

  /** Whether the message is done with (in the inbox, or rejected for good): then it is deleted. */
  const handle = async (m: Message): Promise<boolean> => {
    try {
      const result = await ingestEvent(deps, m.Body ?? '', 'sqs');
      if (result.status === 'rejected') logger.warn({ code: result.code, messageId: m.MessageId }, 'SQS message rejected and deleted');
      return true;
    } catch (err) {
      // Left in the queue: visible again after its visibility timeout.
      logger.warn({ code: 'inbox_unavailable', messageId: m.MessageId, errName: (err as Error)?.name }, 'SQS message not recorded; left for redelivery');
      return false;
    }
  };

  /** One delete call for a received batch's recorded messages. */
  const deleteAll = async (done: Message[]): Promise<void> => {
    if (done.length === 0) return;
    try {
      const r = await sqs.send(
        new DeleteMessageBatchCommand({ QueueUrl: opts.queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })) }),
      );
      processed += r.Successful?.length ?? 0;
      for (const f of r.Failed ?? []) {
        // Recorded already: the redelivery will be a duplicate, which the inbox absorbs.
        logger.warn({ code: 'sqs_delete_failed', messageId: done[Number(f.Id)]?.MessageId, errCode: f.Code }, 'could not delete a recorded SQS message');
      }
    } catch (err) {
      logger.warn({ code: 'sqs_delete_failed', messages: done.length, errName: (err as Error)?.name }, 'could not delete recorded SQS messages');
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      abort.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });

  const loop = (async () => {
    while (!stopping) {
      let messages: Message[];
      try {
        const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: opts.queueUrl, MaxNumberOfMessages: batchSize, WaitTimeSeconds: waitTimeSeconds }), {
          abortSignal: abort.signal,
        });
        messages = r.Messages ?? [];
      } catch (err) {
        if (stopping) break;
        logger.warn({ code: 'sqs_receive_failed', errName: (err as Error)?.name }, 'SQS receive failed; retrying');
        await sleep(backoffMs);
        continue;
      }
      // One at a time: the inbox insert is cheap, and order within a batch is kept for the log.
      const done: Message[] = [];
      for (const m of messages) if (await handle(m)) done.push(m);
      await deleteAll(done);
      // An empty receive has already waited its long poll; a full one may have more behind it.
      if (messages.length > 0 && messages.length < batchSize && !stopping) await sleep(gatherMs);
    }
  })();

  return {
    get processed() {
      return processed;
    },
    async stop() {
      stopping = true;
      // Only the idle long poll is aborted; messages in hand are finished by the loop.
      abort.abort();
      await loop;
    },
  };
}
