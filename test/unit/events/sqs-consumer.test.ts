import fs from 'node:fs';
import path from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient } from '../../../clients/aws';
import { parseConfig } from '../../../config';
import { startSqsConsumer } from '../../../events/sqs-consumer';
import { freePort, type ManagedProcess } from '../../../harness/stack/child-process';
import { startLocalAws } from '../../../harness/stack/fauxqs';
import { capturingLogger, deadPool, envelope, fakeSignaller, inboxRow, quietLogger, ROOT, startTestDb, uniq } from './helpers';

let db: Awaited<ReturnType<typeof startTestDb>>;
let aws: { endpoint: string; proc: ManagedProcess };
let sqs: SQSClient;
const logDir = path.join(ROOT, '.data', 'test-events-sqs-logs');

beforeAll(async () => {
  fs.mkdirSync(logDir, { recursive: true });
  [db, aws] = await Promise.all([startTestDb('sqs'), freePort().then((port) => startLocalAws({ port, logDir }))]);
  sqs = createSqsClient(parseConfig({ SQS_ENDPOINT: aws.endpoint }));
}, 120_000);
afterAll(async () => {
  sqs?.destroy();
  await aws?.proc.stop();
  await db?.stop();
  fs.rmSync(logDir, { recursive: true, force: true });
}, 60_000);

async function queue(visibilitySeconds: number): Promise<string> {
  const r = await sqs.send(new CreateQueueCommand({ QueueName: uniq('events'), Attributes: { VisibilityTimeout: String(visibilitySeconds) } }));
  return r.QueueUrl!;
}

async function counts(queueUrl: string) {
  const r = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return { visible: Number(r.Attributes?.ApproximateNumberOfMessages), inFlight: Number(r.Attributes?.ApproximateNumberOfMessagesNotVisible) };
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('SQS consumer', () => {
  it('records each message in the inbox, then deletes it (queue empty afterwards)', async () => {
    const queueUrl = await queue(30);
    const ids = [uniq('evt'), uniq('evt')];
    for (const id of ids) {
      const body = JSON.stringify(
        envelope('data_import.import_process.error', { resource_type: 'account', external_identifier: uniq('ACC'), error_code: 'x', error_detail: 'y' }, id),
      );
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    }
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'not json at all' }));

    const consumer = startSqsConsumer({ pool: db.pool, ...fakeSignaller().deliver, logger: quietLogger(), sqs }, { queueUrl, waitTimeSeconds: 1 });
    try {
      await until(() => consumer.processed === 3);
    } finally {
      await consumer.stop();
    }
    for (const id of ids) expect(await inboxRow(db.pool, id)).toMatchObject({ received_via: 'sqs', match_status: 'unmatched', deliveries: 1 });
    const rej = await db.pool.query(`select reason, received_via from migrate.rejected_deliveries where received_via = 'sqs' and body_bytes = $1`, [
      Buffer.byteLength('not json at all'),
    ]);
    expect(rej.rows).toEqual([{ reason: 'malformed_json', received_via: 'sqs' }]);
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('does not delete a message it could not record (database down); it is redelivered and recorded later', async () => {
    const queueUrl = await queue(1);
    const id = uniq('evt');
    const body = JSON.stringify(
      envelope('data_import.import_process.complete', { resource_type: 'account', external_identifier: uniq('ACC'), identifier: 'A-77' }, id),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));

    const pool = await deadPool();
    const { logger, lines } = capturingLogger();
    const failing = startSqsConsumer({ pool, ...fakeSignaller().deliver, logger, sqs }, { queueUrl, waitTimeSeconds: 1 });
    try {
      await until(() => lines.some((l) => l.code === 'inbox_unavailable'));
    } finally {
      await failing.stop();
      await pool.end();
    }
    expect(failing.processed).toBe(0);

    // Still in the queue: it comes back once its visibility timeout ends. (The stopped consumer's
    // abandoned long poll may take it once more first, as real SQS can: hence the loop.)
    let redelivered: string[] | undefined;
    await until(async () => {
      const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 2, MaxNumberOfMessages: 1, VisibilityTimeout: 1 }));
      redelivered = r.Messages?.map((m) => m.Body!);
      return redelivered !== undefined;
    });
    expect(redelivered).toEqual([body]);

    const healthy = startSqsConsumer({ pool: db.pool, ...fakeSignaller().deliver, logger: quietLogger(), sqs }, { queueUrl, waitTimeSeconds: 1 });
    try {
      await until(() => healthy.processed === 1);
    } finally {
      await healthy.stop();
    }
    expect(await inboxRow(db.pool, id)).toMatchObject({ received_via: 'sqs', deliveries: 1 });
    expect(await counts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('after a batch that was not full, waits a moment so the next receive takes the events that came meanwhile in one call', async () => {
    // A queue in memory: a receive returns what is visible (up to its maximum), or long-polls until
    // something is; deletes are counted by call.
    const queued: Array<{ MessageId: string; ReceiptHandle: string; Body: string }> = [];
    const batches: number[] = [];
    let deleteCalls = 0;
    let arrived: (() => void) | undefined;
    const memory = {
      send: async (cmd: { input: { MaxNumberOfMessages?: number } }, opts?: { abortSignal?: AbortSignal }) => {
        if (cmd instanceof DeleteMessageBatchCommand) {
          deleteCalls++;
          return { Successful: (cmd.input as { Entries: Array<{ Id: string }> }).Entries.map((e) => ({ Id: e.Id })) };
        }
        while (queued.length === 0) {
          await new Promise<void>((resolve, reject) => {
            arrived = resolve;
            opts?.abortSignal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true });
          });
        }
        const taken = queued.splice(0, cmd.input.MaxNumberOfMessages ?? 1);
        batches.push(taken.length);
        return { Messages: taken };
      },
    } as unknown as typeof sqs;
    const push = () => {
      const id = uniq('evt');
      const body = JSON.stringify(
        envelope('data_import.import_process.error', { resource_type: 'account', external_identifier: uniq('ACC'), error_code: 'x', error_detail: 'y' }, id),
      );
      queued.push({ MessageId: id, ReceiptHandle: id, Body: body });
      arrived?.();
    };
    const consumer = startSqsConsumer(
      { pool: db.pool, ...fakeSignaller().deliver, logger: quietLogger(), sqs: memory },
      { queueUrl: 'memory', waitTimeSeconds: 20, gatherMs: 400 },
    );
    try {
      push();
      await until(() => consumer.processed === 1);
      // Two events 50 ms apart while the consumer gathers: one receive, one delete, not two of each.
      push();
      await new Promise((r) => setTimeout(r, 50));
      push();
      await until(() => consumer.processed === 3);
    } finally {
      await consumer.stop();
    }
    expect(batches).toEqual([1, 2]);
    expect(deleteCalls).toBe(2);
  });

  it('stop() aborts the idle long poll it is waiting on, and polls no more', async () => {
    // An SQS client whose long poll only ends when aborted: stop() must abort it, not wait it out.
    let receives = 0;
    let signal: AbortSignal | undefined;
    const hanging = {
      send: (_cmd: unknown, opts?: { abortSignal?: AbortSignal }) => {
        receives++;
        signal = opts?.abortSignal;
        return new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true }),
        );
      },
    } as unknown as typeof sqs;
    const consumer = startSqsConsumer(
      { pool: db.pool, ...fakeSignaller().deliver, logger: quietLogger(), sqs: hanging },
      { queueUrl: 'http://127.0.0.1:1/q', waitTimeSeconds: 20 },
    );
    await until(() => receives === 1);
    expect(signal?.aborted).toBe(false);
    await consumer.stop();
    expect(signal?.aborted).toBe(true);
    expect(receives).toBe(1);
  });
});
