import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asStagingStep } from '../../../activities/stage-documents';
import type { AccountActivities, PlatformActivities, PrepareResult, StageDocumentsResult } from '../../../activities/types';
import { FAILURE_CONVERTER_PATH } from '../../../codec/data-converter';
import type { AccountImportInput, AccountOutcome } from '../../../domain/inputs';
import { platformTaskQueue } from '../../../domain/task-queues';
import { TIMING_DEFAULTS } from '../../../domain/timing-defaults';
import type { accountImportWorkflow } from '../../../workflows/account-import';
import { startTimeSkipping, type TimeSkipping } from './time-skipping';

/**
 * Prepare stages the account's documents in its own local activity (activities/prepare.ts): the real
 * account workflow on Temporal's test server, its activities stood in for, so each answer prepare can
 * give is tried. What an operator sees does not change: a staging that fails, by its answer or by an
 * error, fails the account at `documents` with the same code and attr; only the history is shorter.
 */

const TQ = 'account-staging';
let ts: TimeSkipping | undefined;

beforeAll(async () => {
  ts = await startTimeSkipping();
}, 180_000);

afterAll(async () => {
  await ts?.stop();
});

const ONGOING = { ok: true, documentCount: 2, supplierStatus: 'ONGOING' } as const;
const STAGED: StageDocumentsResult = { ok: true, uploaded: 2, alreadyPresent: 0 };
const MISSING = { ok: false, code: 'path_does_not_exist_in_file_store', attr: 'notes.0.document_paths.0.document_path' } as const;

interface Ran {
  outcome?: AccountOutcome;
  /** The failed workflow's details: what the UI's Failed execution shows. */
  failure?: { outcome: string; stage: string; code?: string; attr?: string };
  stagingCalls: number;
  scheduleCalls: number;
  markers: number;
}

/** One account through the workflow, prepare answering (or failing) as `prepare` does. */
async function runAccount(ext: string, prepare: () => Promise<PrepareResult>): Promise<Ran> {
  const { env, bundle } = ts!;
  const ran: Ran = { stagingCalls: 0, scheduleCalls: 0, markers: 0 };
  const local: Partial<AccountActivities> = {
    prepareAccount: prepare,
    stageDocuments: async () => (ran.stagingCalls++, STAGED),
    recordOutcome: async (facts) => facts.outcome,
  };
  const platform: Partial<PlatformActivities> = {
    scheduleAccount: async () => (
      ran.scheduleCalls++,
      { kind: 'accepted', event: { eventId: `ev-${ext}`, type: 'data_import.import_process.complete', identifier: `A-${ext}` } }
    ),
  };
  const common = { connection: env.nativeConnection, namespace: 'default', dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH } };
  const main = await Worker.create({ ...common, taskQueue: TQ, workflowBundle: bundle, activities: local, maxCachedWorkflows: 0 });
  const onPlatform = await Worker.create({ ...common, taskQueue: platformTaskQueue(TQ), activities: platform });
  const input: AccountImportInput = {
    runId: 'run-staging',
    supplierCode: 'SUPPLIER-D',
    externalAccountNumber: ext,
    source: { kind: 'postgres' },
    dryRun: false,
    window: { hours: 24 },
    timings: { ...TIMING_DEFAULTS },
    reconcile: false,
  };
  const workflowId = `account-import/SUPPLIER-D/${ext}`;
  const workers = Promise.all([main.run(), onPlatform.run()]);
  try {
    const handle = await env.client.workflow.start<typeof accountImportWorkflow>('accountImportWorkflow', { taskQueue: TQ, workflowId, args: [input] });
    try {
      ran.outcome = await handle.result();
    } catch (e) {
      if (!(e instanceof WorkflowFailedError && e.cause instanceof ApplicationFailure)) throw e;
      ran.failure = e.cause.details?.[0] as Ran['failure'];
    }
    const history = await handle.fetchHistory();
    ran.markers = (history.events ?? []).filter((ev) => ev.markerRecordedEventAttributes).length;
  } finally {
    main.shutdown();
    onPlatform.shutdown();
    await workers;
  }
  return ran;
}

describe('prepare stages the documents in the same local activity', () => {
  it('an account whose documents prepare staged is created with no staging call: two markers (prepare, record), not three', async () => {
    const ran = await runAccount('STAGED', async () => ({ ...ONGOING, staged: STAGED }));
    expect(ran.outcome).toMatchObject({ outcome: 'completed', accountNumber: 'A-STAGED' });
    expect(ran.stagingCalls).toBe(0);
    expect(ran.markers).toBe(2);
  });

  it('a prepare answer without `staged` (recorded before prepare staged) still gets its staging call', async () => {
    const ran = await runAccount('OLD', async () => ONGOING);
    expect(ran.outcome).toMatchObject({ outcome: 'completed' });
    expect(ran.stagingCalls).toBe(1);
    expect(ran.markers).toBe(3);
  });

  it('a document prepare could not stage fails the account at documents with its code and attr; nothing is scheduled', async () => {
    const ran = await runAccount('MISSING', async () => ({ ...ONGOING, staged: MISSING }));
    expect(ran.failure).toMatchObject({ outcome: 'failed', stage: 'documents', code: MISSING.code, attr: MISSING.attr });
    expect(ran.stagingCalls).toBe(0);
    expect(ran.scheduleCalls).toBe(0);
  });

  it('an error while staging fails the account at documents with its type as the code; one before staging, at prepare', async () => {
    const unreachable = () => {
      throw ApplicationFailure.nonRetryable('connect ECONNREFUSED 127.0.0.1:9', 'S3Unreachable');
    };
    const beforeStaging = await runAccount('NO-SUPPLIER', async () => {
      throw ApplicationFailure.nonRetryable('import supplier SUPPLIER-D is unknown', 'supplier_unknown');
    });
    expect(beforeStaging.failure).toMatchObject({ outcome: 'failed', stage: 'prepare', code: 'supplier_unknown' });
    const whileStaging = await runAccount('S3-DOWN', () => asStagingStep(async () => unreachable()));
    expect(whileStaging.failure).toMatchObject({ outcome: 'failed', stage: 'documents', code: 'S3Unreachable' });
    expect(whileStaging.scheduleCalls).toBe(0);
  });
});

describe('asStagingStep', () => {
  const failureOf = async (thrown: unknown) => {
    try {
      await asStagingStep(async () => {
        throw thrown;
      });
    } catch (e) {
      return e;
    }
    throw new Error('asStagingStep did not throw');
  };

  it("leaves an error as the failure the SDK would make of it (its type, retried), marked as staging's", async () => {
    class TimeoutError extends Error {}
    const f = await failureOf(new TimeoutError('socket hang up'));
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect(f).toMatchObject({ type: 'TimeoutError', nonRetryable: false, message: 'socket hang up', details: [{ stage: 'documents' }] });
  });

  it('keeps a failure non-retryable, and lets a cancellation pass as it is', async () => {
    expect(await failureOf(ApplicationFailure.nonRetryable('gone', 'supplier_unknown'))).toMatchObject({
      type: 'supplier_unknown',
      nonRetryable: true,
      details: [{ stage: 'documents' }],
    });
    const cancelled = new CancelledFailure('worker shutting down');
    expect(await failureOf(cancelled)).toBe(cancelled);
  });
});
