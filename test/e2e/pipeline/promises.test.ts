import { describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { createLedger } from '../../../ledger/attempts';
import { claimInboxEvent, insertInboxRecord } from '../../../ledger/inbox';
import { accountWorkflowId } from '../../../domain/workflow-ids';
import { accountImportInputSchema, migrationRunInputSchema, type AccountOutcome } from '../../../domain/inputs';
import { accountProgressQuery, importEventSignal } from '../../../domain/messages';
import { accountsFile, attempts, useE2E, groundTruth, sandbox, seedAccounts, setSupplierEverywhere, uniqueId, until } from '../helpers';

/**
 * Promises the pipeline makes that no happy run exercises: the recorded outcome is set once, an
 * earlier run's event never answers a later schedule, a real import never ends on a dry run's
 * event, and an account of a complete supplier costs no platform call. Each is checked where it
 * is kept: the ledger on the stack's Postgres, the workflows on the stack's Temporal and worker.
 */
const e = useE2E();

/** A run registered in the ledger, and one account of it started as the run starts it (the run workflow itself is not needed). */
async function startAccount(ext: string, opts: { runId: string; signal?: { type: string; identifier: string }; eventWaitSeconds?: number }) {
  const supplierCode = e.config.IMPORT_SUPPLIER_CODE;
  const run = migrationRunInputSchema.parse({
    runId: opts.runId,
    supplierCode,
    source: { kind: 'postgres' },
    selection: { kind: 'list', path: accountsFile(e, opts.runId, [ext]) },
  });
  await createLedger(e.pool).registerRun(run);
  const input = accountImportInputSchema.parse({
    runId: run.runId,
    supplierCode,
    externalAccountNumber: ext,
    source: run.source,
    dryRun: false,
    window: run.window,
    timings: { ...run.timings, supplierRecheckSeconds: 2, ...(opts.eventWaitSeconds === undefined ? {} : { eventWaitSeconds: opts.eventWaitSeconds }) },
  });
  const start = {
    taskQueue: e.config.TEMPORAL_TASK_QUEUE,
    workflowId: accountWorkflowId(supplierCode, ext, false, run.runId),
    args: [input] as [typeof input],
  };
  // With a signal: delivered with the start, so the workflow has it before it does anything else.
  if (opts.signal) {
    return e.client.workflow.signalWithStart('accountImportWorkflow', {
      ...start,
      signal: importEventSignal,
      signalArgs: [{ eventId: uniqueId('ev-'), ...opts.signal }],
    });
  }
  return e.client.workflow.start('accountImportWorkflow', start);
}

/** A fresh account and run id, its supplier set to `status` on the platform and in the ledger (the caller sets it back). */
async function oneAccountOfSupplier(status: 'PAUSED' | 'COMPLETE', seed: number) {
  const [t] = await seedAccounts(e, { accounts: 1, seed, defectRate: 0, accountNumberPrefix: `${uniqueId(status.slice(0, 2))}-` });
  const supplierCode = e.config.IMPORT_SUPPLIER_CODE;
  await setSupplierEverywhere(e, supplierCode, status);
  return { ext: t.external_account_number, supplierCode, runId: uniqueId(`run-${status.toLowerCase()}-guard-`) };
}

async function settled(handle: { result(): Promise<unknown> }): Promise<AccountOutcome | WorkflowFailedError> {
  return (handle.result() as Promise<AccountOutcome>).catch((err: unknown) => {
    if (err instanceof WorkflowFailedError) return err;
    throw err;
  });
}

describe('the ledger keeps one outcome per account (on the real Postgres)', () => {
  it('a second record of a different outcome changes nothing, and says it did not record', async () => {
    const ledger = createLedger(e.pool);
    const runId = uniqueId('run-set-once-');
    const ext = uniqueId('SO');
    const supplierCode = e.config.IMPORT_SUPPLIER_CODE;
    await ledger.registerRun(
      migrationRunInputSchema.parse({ runId, supplierCode, source: { kind: 'postgres' }, selection: { kind: 'list', path: accountsFile(e, runId, [ext]) } }),
    );
    const ref = { runId, externalAccountNumber: ext, supplierCode, dryRun: false };
    await ledger.openAttempt(ref, `account-import/${supplierCode}/${ext}`);

    const first: AccountOutcome = { externalAccountNumber: ext, outcome: 'completed', stage: 'await', accountNumber: 'A-0000SET1', source: 'event' };
    expect(await ledger.recordOutcome(ref, first)).toBe(true);
    // A late poll result, a retried step, another worker: none may replace what was recorded.
    const later: AccountOutcome = {
      externalAccountNumber: ext,
      outcome: 'failed',
      stage: 'platform',
      code: 'import_error',
      attr: 'customers.0.email',
      source: 'poll',
    };
    expect(await ledger.recordOutcome(ref, later)).toBe(false);
    expect(await ledger.recordOutcome(ref, { ...first, accountNumber: 'A-0000SET2' })).toBe(false);

    expect(await ledger.recordedOutcomes(runId, [ext])).toEqual([first]);
    expect((await attempts(e, runId)).get(ext)).toMatchObject({
      outcome: 'completed',
      stage: 'await',
      error_code: null,
      error_attr: null,
      platform_account_number: 'A-0000SET1',
      outcome_source: 'event',
    });
  });
});

describe("the inbox never hands an earlier run's event to a later attempt", () => {
  it('an event received before the attempt was scheduled stays unclaimed; one received after is claimed', async () => {
    const ledger = createLedger(e.pool);
    const supplierCode = e.config.IMPORT_SUPPLIER_CODE;
    const ext = uniqueId('IN');
    const record = (eventType: string, errorCode: string | null) => {
      const eventId = uniqueId('ev-');
      return insertInboxRecord(
        e.pool,
        {
          eventId,
          dedupeKey: eventId,
          eventType,
          payloadVersion: 'v1',
          externalIdentifier: ext,
          identifier: null,
          errorCode,
          raw: {},
          matchStatus: 'unmatched',
          note: null,
        },
        eventId,
        'webhook',
      ).then(() => eventId);
    };
    // An earlier run's error event for the account is in the inbox, never matched.
    const old = await record('data_import.import_process.error', 'tariff_code_not_found');

    const runId = uniqueId('run-inbox-');
    await ledger.registerRun(
      migrationRunInputSchema.parse({ runId, supplierCode, source: { kind: 'postgres' }, selection: { kind: 'list', path: accountsFile(e, runId, [ext]) } }),
    );
    const ref = { runId, externalAccountNumber: ext, supplierCode, dryRun: false };
    await ledger.openAttempt(ref, `account-import/${supplierCode}/${ext}`);
    await new Promise((r) => setTimeout(r, 20));
    await ledger.markScheduled(ref, { stage: 'catalogue', errors: [] });

    // The attempt waits: the old error is not its outcome.
    expect(await claimInboxEvent(e.pool, ref)).toBeUndefined();
    const inbox = await e.pool.query(`select match_status from migrate.inbox where event_id = $1`, [old]);
    expect(inbox.rows[0].match_status).toBe('unmatched');

    // Its own event, received after it was scheduled, is.
    await new Promise((r) => setTimeout(r, 20));
    const own = await record('data_import.import_process.complete', null);
    expect(await claimInboxEvent(e.pool, ref)).toMatchObject({ eventId: own, eventType: 'data_import.import_process.complete' });
  });
});

describe('the account workflow', () => {
  it("a real import ignores a dry run's terminal event: its outcome is the platform's real account", async () => {
    const [t] = await seedAccounts(e, { accounts: 1, seed: 41, defectRate: 0, accountNumberPrefix: `${uniqueId('DS')}-` });
    const ext = t.external_account_number;
    const runId = uniqueId('run-dry-signal-');
    const handle = await startAccount(ext, { runId, signal: { type: 'data_import.import_process.dry_run_complete', identifier: 'A-DRYRUN00' } });
    const result = await settled(handle);
    expect(result).not.toBeInstanceOf(WorkflowFailedError);
    // Not the dry run's answer: the real import's, once the platform processed it.
    expect((result as AccountOutcome).accountNumber).not.toBe('A-DRYRUN00');
    const platform = (await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE)).get(ext);
    expect(platform?.account_number).toMatch(/^A-[0-9A-F]{8}$/);
    expect(result).toMatchObject({ outcome: 'completed', accountNumber: platform!.account_number });
    expect((await attempts(e, runId)).get(ext)).toMatchObject({ outcome: 'completed', platform_account_number: platform!.account_number });
  });

  it('an account of a complete supplier ends not_attempted at the guard, with no platform call', async () => {
    const { ext, supplierCode, runId } = await oneAccountOfSupplier('COMPLETE', 43);
    let result: AccountOutcome | WorkflowFailedError;
    let history;
    try {
      const handle = await startAccount(ext, { runId });
      result = await settled(handle);
      history = await handle.fetchHistory();
    } finally {
      await setSupplierEverywhere(e, supplierCode, 'ONGOING');
    }
    expect(result).toBeInstanceOf(WorkflowFailedError);
    expect((await attempts(e, runId)).get(ext)).toMatchObject({
      outcome: 'not_attempted',
      stage: 'guard',
      error_code: 'import_supplier_migration_not_ongoing',
    });
    // Nothing went to the rate-limited platform queue, and the platform never heard of the account.
    const platformActivities = history
      .events!.filter((ev) => ev.activityTaskScheduledEventAttributes)
      .map((ev) => ev.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(platformActivities).toEqual([]);
    expect((await groundTruth(e, supplierCode)).get(ext)).toBeUndefined();
  });

  it('an account of a paused supplier waits at the guard with no platform call, and completes once the supplier is ongoing', async () => {
    const { ext, supplierCode, runId } = await oneAccountOfSupplier('PAUSED', 44);
    let handle;
    let parked;
    try {
      handle = await startAccount(ext, { runId });
      const h = handle;
      await until('the account parked on its supplier', async () => (await h.query(accountProgressQuery)).waitingOnSupplier);
      parked = await handle.fetchHistory();
    } finally {
      await setSupplierEverywhere(e, supplierCode, 'ONGOING');
    }
    // Parked before the platform heard of it: nothing went to the rate-limited platform queue.
    expect(parked.events!.filter((ev) => ev.activityTaskScheduledEventAttributes)).toEqual([]);
    // The guard's recheck (2 s here) finds the supplier ongoing again.
    expect(await settled(handle)).toMatchObject({ outcome: 'completed' });
  });
});

describe('the schedule activity delivers the event (domain/event-wait.ts)', () => {
  it('a happy-path account: the event completes the schedule activity; no timer, no signal, at most 14 history events', async () => {
    const [t] = await seedAccounts(e, { accounts: 1, seed: 47, defectRate: 0, accountNumberPrefix: `${uniqueId('EW')}-` });
    const ext = t.external_account_number;
    const runId = uniqueId('run-event-wait-');
    const handle = await startAccount(ext, { runId });
    const result = await settled(handle);
    const platform = (await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE)).get(ext);
    expect(result).toMatchObject({ outcome: 'completed', accountNumber: platform!.account_number, source: 'event' });
    const events = (await handle.fetchHistory()).events!;
    expect(events.filter((ev) => ev.timerStartedEventAttributes)).toEqual([]);
    expect(events.filter((ev) => ev.workflowExecutionSignaledEventAttributes)).toEqual([]);
    expect(events.length).toBeLessThanOrEqual(14);
  });

  it('a lost event: the wait runs out, the events process ends it, and the account ends on the import status', async () => {
    const [t] = await seedAccounts(e, { accounts: 1, seed: 53, defectRate: 0, accountNumberPrefix: `${uniqueId('EL')}-` });
    const ext = t.external_account_number;
    const runId = uniqueId('run-event-lost-');
    // This file's stack is its own (one per fork): no other test's events are dropped meanwhile.
    await sandbox(e, 'PUT', '/admin/faults', { eventDropRate: 1 });
    let result;
    let history;
    try {
      const handle = await startAccount(ext, { runId, eventWaitSeconds: 2 });
      result = await settled(handle);
      history = await handle.fetchHistory();
    } finally {
      await sandbox(e, 'PUT', '/admin/faults', { eventDropRate: 0 });
    }
    const platform = (await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE)).get(ext);
    expect(platform?.account_number).toMatch(/^A-[0-9A-F]{8}$/);
    expect(result).toMatchObject({ outcome: 'completed', accountNumber: platform!.account_number, source: 'poll' });
    // Ended by the events process's sweep, in its first attempt: not by its start-to-close timeout and a retry.
    const started = history.events!.filter((ev) => ev.activityTaskStartedEventAttributes).map((ev) => ev.activityTaskStartedEventAttributes!.attempt);
    expect(started[0]).toBe(1);
    expect(history.events!.filter((ev) => ev.activityTaskTimedOutEventAttributes)).toEqual([]);
    const attempt = await e.pool.query(`select event_wait_activity_id from migrate.account_attempts where run_id = $1`, [runId]);
    expect(attempt.rows[0].event_wait_activity_id).toBeNull();
  });
});
