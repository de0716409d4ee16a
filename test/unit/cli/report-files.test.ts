import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportData } from '../../../cli/report/data';
import { writeReportCsv, writeReportHtml } from '../../../cli/report/write';
import { createLedger } from '../../../ledger/attempts';
import { HIDDEN } from '../../../schemas/bounded-output';
import { startTestDb } from '../events/helpers';
import { recordDifferingAccount } from './differing-account';

/**
 * The written report files read back: personal values masked as `validate` masks them, the files
 * 0600 in a 0700 folder.
 */

const RUN = 'run-report-files';
const NAME = 'Wilhelmina Quist-Oyelaran';
const EMAIL = 'w.quist@example.test';
let db: Awaited<ReturnType<typeof startTestDb>>;
let dir: string;

beforeAll(async () => {
  db = await startTestDb('report-files');
  const q = (sql: string, params: unknown[] = []) => db.pool.query(sql, params);
  await q(`insert into migrate.runs (run_id, supplier_code, source, selection, concurrency) values ($1, 'SUP', '{}', '{}', 1)`, [RUN]);
  for (const [ext, outcome] of [
    ['A-1', 'failed'],
    ['A-2', 'completed_with_differences'],
  ])
    await q(
      `insert into migrate.account_attempts (run_id, external_account_number, supplier_code, workflow_id, stage, outcome, error_code, error_attr)
       values ($1, $2, 'SUP', 'wf-' || $2, 'validate', $3, $4, $5)`,
      [RUN, ext, outcome, outcome === 'failed' ? 'invalid_date' : null, outcome === 'failed' ? 'customers.0.date_of_birth' : null],
    );
  const request = { customers: [{ given_name: NAME.split(' ')[0], family_name: 'Quist-Oyelaran', email: EMAIL, date_of_birth: '31/02/1980' }] };
  // Through the ledger: payload and details sealed at rest, opened for the report.
  const ref = { runId: RUN, externalAccountNumber: 'A-1', supplierCode: 'SUP', dryRun: false };
  const ledger = createLedger(db.pool);
  await ledger.storePrepared(ref, { workflowId: 'wf-A-1', request, documents: [], stage: 'validate' });
  await ledger.replaceErrors(ref, 'validate', [
    { stage: 'validate', code: 'invalid_date', attr: 'customers.0.date_of_birth', detail: '"31/02/1980" is not a real date' },
    { stage: 'validate', code: 'contact_refused', attr: 'meter_points.0.contact', detail: 'contact Wilhelmina refused: e-mail w.quist@example.test bounced' },
    { stage: 'validate', code: 'invalid_tariff', attr: 'agreements.0.tariff_code', detail: 'tariff "E-1R-OLD" is not offered' },
  ]);
  expect((await q(`select request from migrate.account_payloads`)).rows[0].request).toMatch(/^\$sealed:v1:/);
  await recordDifferingAccount(db.pool, RUN, [
    { path: 'customers.0.email', field: 'customers.*.email', expected: EMAIL, found: 'someone.else@example.test' },
    { path: 'agreements.0.tariff_code', field: 'agreements.*.tariff_code', expected: 'E-1R-NEW', found: 'E-1R-OLD' },
  ]);
  dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'report-files-')), 'reports', RUN);
}, 120_000);

afterAll(async () => {
  await db?.stop();
  if (dir) fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
});

describe('report files', () => {
  it('failed-accounts.csv hides personal values (quoted under a personal attr, or the payload’s own values) and keeps the rest', async () => {
    const csv = fs.readFileSync(await writeReportCsv(db.pool, RUN, dir), 'utf8');
    for (const personal of ['31/02/1980', 'Wilhelmina', EMAIL, 'someone.else@example.test']) expect(csv).not.toContain(personal);
    expect(csv).toContain(`"""${HIDDEN}"" is not a real date"`);
    expect(csv).toContain(`contact ${HIDDEN} refused: e-mail ${HIDDEN} bounced`);
    expect(csv).toContain('tariff ""E-1R-OLD"" is not offered');
    expect(csv).toContain('expected E-1R-NEW, found E-1R-OLD');
    expect(csv).toContain(`expected ${HIDDEN}, found ${HIDDEN}`);
  });

  it('report.html hides the same values', async () => {
    const data = await loadReportData(db.pool, RUN, { temporalUiUrl: 'http://127.0.0.1:8233', namespace: 'default' });
    const html = fs.readFileSync(writeReportHtml(data!, dir), 'utf8');
    for (const personal of ['31/02/1980', 'Wilhelmina', EMAIL, 'someone.else@example.test']) expect(html).not.toContain(personal);
    expect(html).toContain('is not a real date');
    expect(html).toContain('E-1R-OLD');
  });

  it('writes each file 0600 in a 0700 folder, even over an older world-readable file and folder', async () => {
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(path.join(dir, 'failed-accounts.csv'), 0o644);
    await writeReportCsv(db.pool, RUN, dir);
    const data = await loadReportData(db.pool, RUN, { temporalUiUrl: 'http://127.0.0.1:8233', namespace: 'default' });
    writeReportHtml(data!, dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'failed-accounts.csv')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, 'report.html')).mode & 0o777).toBe(0o600);
  });
});
