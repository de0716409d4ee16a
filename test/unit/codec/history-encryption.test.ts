import { provisionTemporalCli } from '../../../harness/stack/temporal-cli';
import { codecWarnings } from '../../../clients/temporal';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCodec, createDataConverter } from '../../../codec/data-converter';
import { createLogger, createTemporalLogger } from '../../../logging/logger';
import { createCodecServer } from '../../../codec/server';
import type { echoWorkflow, failingWorkflow } from './fixtures/workflows';

/**
 * Runs workflows against the real Temporal dev server and reads the stored history back without
 * the codec: personal data must appear nowhere in it, failure messages included.
 */
// The CLI the project provisions (npm run temporal:provision; CI does it before the tests).
const cli = provisionTemporalCli({ quiet: true });
const TEMPORAL_BIN = cli.path;
const MARKER = 'Jabłoński-SECRET-07123456789';
const TASK_QUEUE = 'codec-history-test';
const codecCfg = { CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}`, KRAKEN_MIGRATE_MODE: 'development' as const };
const dataConverter = createDataConverter(codecCfg, { logger: codecWarnings });

// The SDK logs failed workflows with their error: capture its logs to check they stay clean too.
const sdkLogLines: string[] = [];
const sdkLogger = createLogger('temporal-sdk', { level: 'info', destination: { write: (s: string) => void sdkLogLines.push(s) } });

let env: TestWorkflowEnvironment;
let worker: Worker;
let workerRun: Promise<void>;

beforeAll(async () => {
  Runtime.install({ logger: createTemporalLogger(sdkLogger) });
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: TEMPORAL_BIN }, ip: '127.0.0.1' },
    client: { dataConverter },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: TASK_QUEUE,
    // vitest's require.resolve does not try .ts: name the file.
    workflowsPath: path.resolve(__dirname, 'fixtures/workflows.ts'),
    dataConverter,
  });
  workerRun = worker.run();
}, 240_000);

afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await env?.teardown();
}, 60_000);

async function rawHistoryBytes(workflowId: string): Promise<{ bytes: Buffer; events: temporal.api.history.v1.IHistoryEvent[] }> {
  // Same connection, straight to the gRPC service: no data converter, no codec.
  const resp = await env.client.workflowService.getWorkflowExecutionHistory({
    namespace: env.namespace ?? 'default',
    execution: { workflowId },
  });
  const bytes = Buffer.from(temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse.encode(resp).finish());
  return { bytes, events: resp.history?.events ?? [] };
}

const markerBytes = Buffer.from(MARKER, 'utf8');

describe('Temporal history encryption (real dev server)', () => {
  it('input and result are stored encrypted; the client decodes them', async () => {
    const workflowId = `codec-echo-${Date.now()}`;
    const result = await env.client.workflow.execute<typeof echoWorkflow>('echoWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId,
      args: [{ customerName: MARKER }],
    });
    expect(result.greeting).toBe(`hello ${MARKER}`);

    const { bytes, events } = await rawHistoryBytes(workflowId);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.includes(markerBytes)).toBe(false);
    // Also not as the JSON the default converter would write (with escapes).
    expect(bytes.includes(Buffer.from('SECRET-07123456789'))).toBe(false);

    const input = events[0].workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    expect(Buffer.from(input[0].metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
    const [decoded] = await createCodec(codecCfg, { logger: codecWarnings }).decode(input);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ customerName: MARKER });
  });

  it('failure messages and stack traces are stored encrypted too', async () => {
    const workflowId = `codec-fail-${Date.now()}`;
    const err = await env.client.workflow
      .execute<typeof failingWorkflow>('failingWorkflow', { taskQueue: TASK_QUEUE, workflowId, args: [{ customerName: MARKER }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).message).toBe(`invalid landline for ${MARKER}`);
    expect((cause as ApplicationFailure).details).toEqual([{ customerName: MARKER }]);

    const { bytes, events } = await rawHistoryBytes(workflowId);
    expect(bytes.includes(markerBytes)).toBe(false);
    expect(bytes.includes(Buffer.from('invalid landline'))).toBe(false);
    const failed = events.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes;
    expect(failed?.failure?.message).toBe('Encoded failure');
    expect(failed?.failure?.encodedAttributes?.metadata?.encoding).toBeDefined();
    expect(Buffer.from(failed!.failure!.encodedAttributes!.metadata!.encoding).toString()).toBe('binary/encrypted');

    const sdkLogs = sdkLogLines.join('');
    expect(sdkLogs).toContain('"msg":"Workflow failed"');
    expect(sdkLogs).not.toContain('SECRET-07123456789');
  });

  it('the Temporal CLI shows decoded history through the codec server, and only through it', async () => {
    const workflowId = `codec-cli-${Date.now()}`;
    await env.client.workflow.execute<typeof echoWorkflow>('echoWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId,
      args: [{ customerName: MARKER }],
    });
    const server = createCodecServer({
      codec: createCodec(codecCfg, { logger: codecWarnings }),
      authToken: 'cli-token',
      uiOrigin: 'http://127.0.0.1:8233',
      logger: createLogger('codec-server', { level: 'silent' }),
    });
    const { url } = await server.listen(0);
    try {
      const show = async (extra: string[]) =>
        (
          await promisify(execFile)(
            TEMPORAL_BIN,
            ['workflow', 'show', '--address', env.address, '--namespace', env.namespace ?? 'default', '-w', workflowId, '-o', 'json', ...extra],
            { timeout: 60_000 },
          )
        ).stdout;
      // `-o json` prints proto3-JSON: payload metadata and data stay base64.
      const firstInput = (out: string) => {
        const started = (JSON.parse(out) as { events: Array<Record<string, any>> }).events[0];
        const payload = started.workflowExecutionStartedEventAttributes.input.payloads[0] as { metadata: Record<string, string>; data: string };
        return { encoding: Buffer.from(payload.metadata.encoding, 'base64').toString(), data: Buffer.from(payload.data, 'base64').toString() };
      };
      const raw = firstInput(await show([]));
      expect(raw.encoding).toBe('binary/encrypted');
      expect(raw.data).not.toContain(MARKER);
      const decoded = firstInput(await show(['--codec-endpoint', url, '--codec-auth', 'Bearer cli-token']));
      expect(decoded.encoding).toBe('json/plain');
      expect(JSON.parse(decoded.data)).toEqual({ customerName: MARKER });
    } finally {
      await server.close();
    }
  });
});
