import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../clients/db';
import { createLedger, createReconciliationLedger, ledgerProgress } from '../../../ledger';
import { outcomeOf } from '../../../domain/outcomes';
import { expectSummaryExact, stackEnv } from '../helpers';

/**
 * The per-run counters `run status` and `report` read are kept by the ledger's triggers: every way
 * an attempt is written (a bulk insert, the pipeline's recordOutcome and insertOutcomes, an
 * update of a finished row, a delete) leaves them equal to a full count of the run's attempts.
 */
let pool: Pool;
const runId = `summary-e2e-${Date.now().toString(36)}`;
const ref = (ext: string) => ({ runId, supplierCode: 'SUMMARY', externalAccountNumber: ext, dryRun: false });

beforeAll(async () => {
  pool = createPool(stackEnv().DATABASE_URL, 2);
  await pool.query(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUMMARY', '{}', '{}', 5)`, [runId]);
});

afterAll(async () => {
  await pool.query('delete from migrate.account_attempts where run_id = $1', [runId]);
  await pool.query('delete from migrate.runs where run_id = $1', [runId]);
  await pool.end();
});

/** The checkpoint's counts (kept by triggers) against a full count of the run's attempts. */
async function expectCheckpointExact(): Promise<void> {
  const full = await pool.query<{ in_source: number; sent: number; created: number }>(
    `select count(*)::int as in_source, count(scheduled_at)::int as sent,
            count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)::int as created
       from migrate.account_attempts where run_id = $1 and not dry_run`,
    [runId],
  );
  const c = full.rows[0];
  const { counts } = await createReconciliationLedger(pool).checkpoint(runId);
  expect({ inSource: counts.inSource, sent: counts.sent, created: counts.created }).toEqual({ inSource: c.in_source, sent: c.sent, created: c.created });
}

describe('per-run outcome counters', () => {
  it('stay a full count through inserts, recorded outcomes, corrections and deletes', async () => {
    const ledger = createLedger(pool);
    // A bulk insert: some finished, some open.
    await pool.query(
      `insert into migrate.account_attempts (run_id, external_account_number, supplier_code, workflow_id, stage, outcome, outcome_source, error_code, finished_at)
       select $1, 'S-' || i, 'SUMMARY', 'wf-' || i, case when i % 3 = 0 then 'validate' else 'await' end,
              case when i % 3 = 0 then 'failed' when i % 3 = 1 then 'completed' end,
              case when i % 3 <> 2 then 'event' end, case when i % 3 = 0 then 'invalid_phone_number' end,
              case when i % 3 <> 2 then now() - make_interval(mins => i % 4) end
         from generate_series(1, 30) i`,
      [runId],
    );
    await expectSummaryExact(pool, runId);
    await expectCheckpointExact();
    expect((await ledgerProgress(pool, runId)).outcomes).toEqual({ completed: 10, failed: 10, notAttempted: 0, inProgress: 10 });

    // Stage changes of open accounts move nothing; their outcomes, recorded once each, do.
    await ledger.setStage(ref('S-2'), 'schedule');
    await ledger.markScheduled(ref('S-5'), { stage: 'preflight', errors: [] });
    expect(await ledger.recordOutcome(ref('S-2'), { externalAccountNumber: 'S-2', outcome: 'completed', stage: 'done', source: 'poll' })).toBe(true);
    expect(await ledger.recordOutcome(ref('S-2'), { externalAccountNumber: 'S-2', outcome: 'failed', stage: 'done', code: 'x' })).toBe(false);
    expect(
      await ledger.recordOutcome(ref('S-5'), { externalAccountNumber: 'S-5', outcome: 'failed', stage: 'platform', code: 'import_cancelled', source: 'event' }),
    ).toBe(true);
    const inFlightElsewhere = ['S-31', 'S-32', 'S-1'].map((ext) => outcomeOf(ext, { step: 'elsewhere', status: 'RUNNING', accountNumber: undefined }));
    await ledger.insertOutcomes({ runId, supplierCode: 'SUMMARY', dryRun: false }, inFlightElsewhere, (x) => `wf-${x}`);
    await expectSummaryExact(pool, runId);
    await expectCheckpointExact();
    const p = await ledgerProgress(pool, runId);
    expect(p.outcomes).toEqual({ completed: 11, failed: 11, notAttempted: 2, inProgress: 8 });
    expect(p.topErrors).toEqual([
      { code: 'invalid_phone_number', count: 10 },
      { code: 'account_in_flight_in_another_run', count: 2 },
      { code: 'import_cancelled', count: 1 },
    ]);

    // A finished row corrected in place (its stage, code, outcome, minute), and rows deleted.
    await pool.query(`update migrate.account_attempts set stage = 'schedule' where run_id = $1 and external_account_number = 'S-3'`, [runId]);
    await pool.query(
      `update migrate.account_attempts set error_code = 'required', finished_at = finished_at + interval '5 minutes' where run_id = $1 and external_account_number = 'S-6'`,
      [runId],
    );
    await pool.query(`update migrate.account_attempts set outcome = 'completed', error_code = null where run_id = $1 and external_account_number = 'S-9'`, [
      runId,
    ]);
    await pool.query(`update migrate.account_attempts set outcome = null, finished_at = null where run_id = $1 and external_account_number = 'S-4'`, [runId]);
    await pool.query(`delete from migrate.account_attempts where run_id = $1 and external_account_number in ('S-10', 'S-11', 'S-12')`, [runId]);
    await expectSummaryExact(pool, runId);
    // Created accounts (a completed outcome with the platform's number), scheduled ones, a dry-run row: the checkpoint's counts.
    await pool.query(
      `update migrate.account_attempts set platform_account_number = 'A-' || external_account_number where run_id = $1 and outcome = 'completed'`,
      [runId],
    );
    await expectCheckpointExact();
    await pool.query(`update migrate.account_attempts set platform_account_number = null where run_id = $1 and external_account_number = 'S-7'`, [runId]);
    await pool.query(`update migrate.account_attempts set scheduled_at = now() where run_id = $1 and external_account_number in ('S-14', 'S-15', 'S-16')`, [
      runId,
    ]);
    await pool.query(`update migrate.account_attempts set dry_run = true where run_id = $1 and external_account_number = 'S-15'`, [runId]);
    await pool.query(`update migrate.account_attempts set outcome = 'failed', error_code = 'x' where run_id = $1 and external_account_number = 'S-19'`, [
      runId,
    ]);
    await expectCheckpointExact();
    await pool.query(`update migrate.account_attempts set outcome = 'completed', error_code = null where run_id = $1 and external_account_number = 'S-19'`, [
      runId,
    ]);
    await pool.query(`update migrate.account_attempts set dry_run = false where run_id = $1 and external_account_number = 'S-15'`, [runId]);
    await expectCheckpointExact();
    const { counts } = await createReconciliationLedger(pool).checkpoint(runId);
    expect(counts.sent).toBe(4); // S-5, scheduled above, and S-14 to S-16
    expect((await ledgerProgress(pool, runId)).outcomes).toEqual({ completed: 10, failed: 9, notAttempted: 2, inProgress: 8 });
  });

  it('count reconciliation checks by status through inserts, replaced checks and deletes', async () => {
    const recon = createReconciliationLedger(pool);
    const checked = async () => {
      const full = await pool.query<{ status: string; n: number }>(
        `select status, count(*)::int as n from migrate.reconciliations where run_id = $1 group by 1`,
        [runId],
      );
      const n = (s: string) => full.rows.find((r) => r.status === s)?.n ?? 0;
      const s = await recon.summary(runId);
      expect({ checked: s.checked, matched: s.matched, differing: s.differing, missing: s.missing }).toEqual({
        checked: full.rows.reduce((a, r) => a + r.n, 0),
        matched: n('matched'),
        differing: n('differing'),
        missing: n('account_missing'),
      });
      // Unverified accounts and balance totals, kept by triggers, against a full count.
      const totals = await pool.query<{ unverified: number; accounts: number; source: string; platform: string; difference: string }>(
        `select count(*) filter (where unverified_fields > 0)::int as unverified, count(*) filter (where b)::int as accounts,
                trim_scale(coalesce(sum(source_balance_pence) filter (where b), 0))::text as source,
                trim_scale(coalesce(sum(platform_balance_pence) filter (where b), 0))::text as platform,
                trim_scale(coalesce(sum(platform_balance_pence - source_balance_pence) filter (where b), 0))::text as difference
           from (select *, source_balance_pence is not null and platform_balance_pence is not null as b from migrate.reconciliations where run_id = $1) r`,
        [runId],
      );
      const t = totals.rows[0];
      expect({ unverified: s.unverified, ...s.balances }).toEqual({
        unverified: t.unverified,
        accounts: t.accounts,
        sourcePence: t.source,
        platformPence: t.platform,
        differencePence: t.difference,
      });
      return s.checked;
    };
    await pool.query(
      `insert into migrate.reconciliations (run_id, external_account_number, platform_account_number, status, checked_fields, differing_fields, checked_by)
       select run_id, external_account_number, 'A-' || external_account_number, case when external_account_number like '%7' then 'differing' else 'matched' end, 3, 0, 'workflow'
         from migrate.account_attempts where run_id = $1 and outcome = 'completed'`,
      [runId],
    );
    expect(await checked()).toBe(10);
    await pool.query(`update migrate.reconciliations set status = 'account_missing' where run_id = $1 and external_account_number in ('S-1', 'S-7')`, [runId]);
    await checked();
    // Balances read back (one side only for S-16: not counted) and unverified fields, then replaced.
    await pool.query(
      `update migrate.reconciliations set source_balance_pence = 12345678901234567890.5, platform_balance_pence = 12345678901234567890,
              unverified_fields = 2 where run_id = $1 and external_account_number in ('S-13', 'S-19')`,
      [runId],
    );
    await pool.query(`update migrate.reconciliations set source_balance_pence = -250 where run_id = $1 and external_account_number = 'S-16'`, [runId]);
    await checked();
    expect((await recon.summary(runId)).balances).toEqual({
      accounts: 2,
      sourcePence: '24691357802469135781',
      platformPence: '24691357802469135780',
      differencePence: '-1',
    });
    await recon.record({
      runId,
      externalAccountNumber: 'S-19',
      platformAccountNumber: 'A-S-19',
      status: 'matched',
      checkedFields: 3,
      differences: [],
      checkedBy: 'reconcile_command',
      sourceBalancePence: '100',
      platformBalancePence: '90',
    });
    await checked();
    expect((await recon.summary(runId)).unverified).toBe(1);
    await pool.query(`delete from migrate.reconciliations where run_id = $1 and external_account_number = 'S-13'`, [runId]);
    expect(await checked()).toBe(9);
  });
});
