import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../domain/outcomes';
import { createLedger } from '../../../ledger';
import type { AttemptRef } from '../../../ledger/types';
import { startTestDb, uniq } from '../events/helpers';

/**
 * A recorded outcome is final: a late step (a retried activity, a replayed workflow, a worker that
 * wakes after its account finished elsewhere) must not move a finished account's stage, or the
 * report would put the outcome at the wrong step. Proven on the real Postgres, since the guard is
 * SQL (`and outcome is null`); outside the mutation scope, whose unit tests run without one.
 */

let db: Awaited<ReturnType<typeof startTestDb>>;
let ledger: ReturnType<typeof createLedger>;

beforeAll(async () => {
  db = await startTestDb('stage-guard');
  ledger = createLedger(db.pool);
}, 180_000);
afterAll(async () => db?.stop());

async function openAccount(): Promise<AttemptRef> {
  const ref = { runId: uniq('run'), externalAccountNumber: uniq('ACC'), supplierCode: 'S1', dryRun: false };
  await ledger.registerRun({
    runId: ref.runId,
    supplierCode: 'S1',
    dryRun: false,
    source: { kind: 'synthetic' },
    selection: { kind: 'all' },
    concurrency: 1,
  } as never);
  await ledger.openAttempt(ref, `wf-${ref.externalAccountNumber}`);
  return ref;
}

const stageOf = async (ref: AttemptRef) =>
  (
    await db.pool.query(`select stage, outcome from migrate.account_attempts where run_id = $1 and external_account_number = $2`, [
      ref.runId,
      ref.externalAccountNumber,
    ])
  ).rows[0] as { stage: string; outcome: string | null };

const doc = { key: 'docs/a.pdf', sha256: 'a'.repeat(64), size: 3, action: 'uploaded' as const };

describe('a stage update after the outcome', () => {
  it('moves an open attempt on, step by step', async () => {
    const ref = await openAccount();
    await ledger.setStage(ref, 'validate');
    expect(await stageOf(ref)).toEqual({ stage: 'validate', outcome: null });
    await ledger.recordDocuments(ref, [doc], 'documents');
    expect(await stageOf(ref)).toEqual({ stage: 'documents', outcome: null });
  });

  it('setStage leaves a finished account at the stage its outcome was recorded at', async () => {
    const ref = await openAccount();
    expect(
      await ledger.recordOutcome(ref, { externalAccountNumber: ref.externalAccountNumber, outcome: 'failed', stage: 'validate', code: 'invalid_phone_number' }),
    ).toBe(true);
    await ledger.setStage(ref, 'schedule');
    expect(await stageOf(ref)).toEqual({ stage: 'validate', outcome: 'failed' });
  });

  it('recording staged documents leaves a finished account at its stage (the documents are still recorded)', async () => {
    const ref = await openAccount();
    await ledger.recordOutcome(ref, { externalAccountNumber: ref.externalAccountNumber, outcome: 'completed', stage: 'await', accountNumber: 'A-1' });
    await ledger.recordDocuments(ref, [doc], 'documents');
    expect(await stageOf(ref)).toEqual({ stage: 'await', outcome: 'completed' });
    const staged = await db.pool.query(`select object_key from migrate.documents_staged where run_id = $1 and external_account_number = $2`, [
      ref.runId,
      ref.externalAccountNumber,
    ]);
    expect(staged.rows).toEqual([{ object_key: 'docs/a.pdf' }]);
  });
});

describe('outcomes the run settles without starting the account (insertOutcomes)', () => {
  it('writes each outcome as outcomeOf built it, and leaves an account that has a row as it was', async () => {
    const open = await openAccount();
    const run = { runId: open.runId, supplierCode: 'S1', dryRun: false };
    const created = outcomeOf('ELSE-1', { step: 'elsewhere', status: 'COMPLETED', accountNumber: 'A-9' });
    const cancelled = outcomeOf(open.externalAccountNumber, { step: 'not_reached', code: 'run_cancelled' });
    expect(await ledger.insertOutcomes(run, [created, cancelled], (ext) => `wf-${ext}`)).toBe(1);
    expect(await ledger.recordedOutcomes(run.runId, ['ELSE-1', open.externalAccountNumber])).toEqual([created]);
    const row = await db.pool.query(
      `select workflow_id, finished_at is not null as finished from migrate.account_attempts where run_id = $1 and external_account_number = 'ELSE-1'`,
      [run.runId],
    );
    expect(row.rows).toEqual([{ workflow_id: 'wf-ELSE-1', finished: true }]);
    expect(await stageOf(open)).toEqual({ stage: 'prepare', outcome: null });
  });
});
