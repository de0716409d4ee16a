import { WorkflowNotFoundError } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { loadReportData } from '../../../ledger/report-data';
import { reportSummary, summaryLines, throughputLine } from '../../../cli/report/summary';
import { reportOptionsSchema } from '../../../cli/report/options';
import { parseOptions } from '../../../cli/option-schema';
import { runStatus, type TemporalAccess } from '../../../cli/actions/run-status';
import * as questions from '../../../cli/run-status-temporal';
import { startTestDb } from '../events/helpers';
import { recordDifferingAccount } from './differing-account';

/**
 * `report --summary` and `run status` as an operator reads them at a million rows (#41): the summary
 * says what the full report says, from the counters alone; `run status` answers from the ledger when
 * Temporal does not know the run or does not answer, and says so.
 */

const RUN = 'run-operator-answers';
const cfg = parseConfig({});
let db: Awaited<ReturnType<typeof startTestDb>>;

beforeAll(async () => {
  db = await startTestDb('operator-answers');
  const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params);
  await q(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUP', '{"kind":"postgres"}', '{"kind":"all"}', 1)`, [
    RUN,
  ]);
  // 2 completed (one in each of two minutes), 2 failed by two codes, 1 not attempted, 1 in progress.
  const rows: Array<[string, string | null, string | null, string, number | null]> = [
    ['A-1', 'completed', null, 'done', 0],
    ['A-2', 'completed_with_differences', null, 'done', 1],
    ['A-3', 'failed', 'invalid_date', 'validate', 1],
    ['A-4', 'failed', 'tariff_code_not_found', 'platform', 1],
    ['A-5', 'not_attempted', 'run_cancelled', 'guard', 1],
    ['A-6', null, null, 'await', null],
  ];
  for (const [ext, outcome, code, stage, minute] of rows)
    await q(
      `insert into migrate.account_attempts (run_id, external_account_number, supplier_code, workflow_id, stage, outcome, outcome_source, error_code, finished_at)
       values ($1, $2, 'SUP', 'wf-' || $2, $3, $4, case when $4::text is null then null else 'event' end, $5,
               case when $6::int is null then null else timestamptz '2026-11-26 10:00:00+00' + make_interval(mins => $6::int) end)`,
      [RUN, ext, stage, outcome, code, minute],
    );
  await recordDifferingAccount(db.pool, RUN, [
    { path: 'agreements.0.tariff_code', field: 'agreements.*.tariff_code', expected: 'E-1R-NEW', found: 'E-1R-OLD' },
  ]);
}, 120_000);

afterAll(async () => {
  await db?.stop();
});

describe('report --summary', () => {
  it("says what the full report's summary says, with the reconciliation's counts", async () => {
    const s = await reportSummary(db.pool, RUN);
    const full = (await loadReportData(db.pool, RUN, { temporalUiUrl: 'http://ui', namespace: 'default' }))!;
    const { generatedAt: _a, reconciliation, postImport: _p, retryingOmitted, ...summary } = s;
    const { generatedAt: _b, examples: _e, temporalUiUrl: _u, namespace: _n, afterImport, retrying: _r, ...fullSummary } = full;
    expect(summary).toEqual(fullSummary);
    expect(s.totals).toEqual({ accounts: 6, completed: 2, failed: 2, notAttempted: 1, inProgress: 1 });
    expect(s.failuresByCode.map((r) => r.label).sort()).toEqual(['invalid_date', 'run_cancelled', 'tariff_code_not_found']);
    expect({ checked: reconciliation.checked, differing: reconciliation.differing }).toEqual({
      checked: afterImport!.reconciliation.checked,
      differing: afterImport!.reconciliation.differing,
    });
    expect(reconciliation.checked).toBe(1);
    // The run is still going with an account in progress: the retrying accounts (Temporal's) are left out, and it says so.
    expect(retryingOmitted).toBe(true);
    const lines = summaryLines(s);
    expect(lines).toContain('Accounts 6: completed 2, failed 2, not attempted 1, in progress 1');
    expect(lines.some((l) => l.startsWith('Retrying accounts: not read'))).toBe(true);
    expect(lines.some((l) => l.startsWith('Reconciliation: checked 1, matched 0, differing 1'))).toBe(true);
  });

  it('leaves out no retrying line for a run that is over', async () => {
    await db.pool.query(`update migrate.runs set status = 'completed', finished_at = now() where run_id = $1`, [RUN]);
    try {
      const s = await reportSummary(db.pool, RUN);
      expect(s.retryingOmitted).toBe(false);
      expect(summaryLines(s).some((l) => l.startsWith('Retrying accounts'))).toBe(false);
    } finally {
      await db.pool.query(`update migrate.runs set status = 'running', finished_at = null where run_id = $1`, [RUN]);
    }
  });

  it('names a run the ledger does not have', async () => {
    await expect(reportSummary(db.pool, 'no-such-run')).rejects.toMatchObject({ code: 'run_not_found' });
  });

  it('throughput: finished accounts over the minutes from the first to the last, and the busiest minute', () => {
    expect(
      throughputLine([
        { minute: '2026-11-26T10:00:00.000Z', count: 1 },
        { minute: '2026-11-26T10:03:00.000Z', count: 7 },
      ]),
    ).toBe('Throughput: 8 finished in 4 min from 2026-11-26T10:00:00.000Z, 2.0/min on average, peak 7/min at 2026-11-26T10:03:00.000Z');
    expect(throughputLine([])).toBe('Throughput: no account finished yet');
  });

  it('--summary writes no files: --out with it is a usage error naming --out', () => {
    expect(() => parseOptions(reportOptionsSchema, { summary: true, out: 'x' })).toThrow(/--out: cannot be used with --summary/);
    expect(parseOptions(reportOptionsSchema, { summary: true, json: true })).toEqual({ summary: true, json: true });
  });
});

/** Temporal as `run status` reaches it, its questions' module loaded as the test's (vitest runs no require hook). */
const access = (client: () => Promise<Client>, waitMs?: number): TemporalAccess => ({ client, questions: () => questions, ...(waitMs ? { waitMs } : {}) });
/** `run status` of the seeded run, Temporal reached through `temporal`. */
const statusVia = (temporal: TemporalAccess) => runStatus(temporal, db.pool, cfg, RUN);

/** A Temporal client whose run workflow is described as `describe` says. */
const fakeClient = (describe: () => Promise<unknown>): Client =>
  ({
    workflow: {
      getHandle: () => ({ describe, query: () => Promise.reject(new Error('no worker')) }),
    },
  }) as unknown as Client;

describe('run status', () => {
  it('answers from the ledger, saying so, when Temporal does not know the run', async () => {
    const client = fakeClient(() => Promise.reject(new WorkflowNotFoundError('not found', `migration-run/${RUN}`, undefined)));
    const st = await statusVia(access(async () => client));
    expect(st.workflowStatus).toBeNull();
    expect(st.temporal).toEqual({ answered: false, reason: `no run ${RUN} (workflow migration-run/${RUN}) in this Temporal namespace` });
    expect(st.ledgerStatus).toBe('running');
    expect(st.outcomes).toEqual({ completed: 2, failed: 2, notAttempted: 1, inProgress: 1 });
    expect(st.checkpoint.counts.reconciled).toBe(1);
  });

  it('answers from the ledger when Temporal does not answer in time', async () => {
    const started = performance.now();
    const st = await statusVia(access(() => new Promise<Client>(() => {}), 100));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(st.temporal?.reason).toBe('Temporal did not describe the run within 0.1 s');
    expect(st.outcomes.completed).toBe(2);
  });

  it('answers from the ledger when Temporal cannot be reached', async () => {
    const st = await statusVia(access(() => Promise.reject(new Error('cannot reach Temporal at 127.0.0.1:1'))));
    expect(st.temporal?.reason).toBe('cannot reach Temporal at 127.0.0.1:1');
    expect(st.startTime).toBe((await db.pool.query(`select started_at from migrate.runs where run_id = $1`, [RUN])).rows[0].started_at.toISOString());
  });

  it("takes Temporal's status when it knows the run", async () => {
    const client = fakeClient(async () => ({
      status: { name: 'COMPLETED' },
      startTime: new Date('2026-11-26T09:00:00Z'),
      closeTime: new Date('2026-11-26T11:00:00Z'),
    }));
    const st = await statusVia(access(async () => client));
    expect(st.temporal).toBeNull();
    expect(st.workflowStatus).toBe('COMPLETED');
    expect({ start: st.startTime, close: st.closeTime }).toEqual({ start: '2026-11-26T09:00:00.000Z', close: '2026-11-26T11:00:00.000Z' });
    expect(st.progress).toBeNull();
  });

  it('a run neither knows is an error: Temporal’s own', async () => {
    const client = fakeClient(() => Promise.reject(new WorkflowNotFoundError('not found', 'migration-run/nope', undefined)));
    await expect(
      runStatus(
        access(async () => client),
        db.pool,
        cfg,
        'nope',
      ),
    ).rejects.toMatchObject({ code: 'run_not_found' });
  });
});
