import { describe, expect, it } from 'vitest';
import { accountsFile, attempts, useE2E, listOf, runToEnd, sandbox, seedAccounts, uniqueId } from '../helpers';

const e = useE2E();

const errorsOf = async (runId: string, ext: string) =>
  (
    await e.pool.query(
      `select stage, code, attr from migrate.account_errors where run_id = $1 and external_account_number = $2 and stage = 'platform' order by id`,
      [runId, ext],
    )
  ).rows;

// import_process_failed_validation names the process, not the field: the client asks the validate
// endpoint and records the field paths, whether the code came as the schedule answer or as an event.
describe('import_process_failed_validation is explained by the validate endpoint', () => {
  it('as the schedule answer: the field the platform refuses is recorded with its path', async () => {
    // A supplier the ledger knows but the platform does not: schedule answers
    // import_process_failed_validation, validate names import_supplier.
    const supplier = uniqueId('GHOST');
    await e.pool.query(`insert into migrate.supplier_status (supplier_code, status, document_root, updated_by) values ($1, 'ONGOING', $2, 'test')`, [
      supplier,
      e.config.IMPORT_SUPPLIER_DOCUMENT_ROOT,
    ]);
    const truth = await seedAccounts(e, { accounts: 1, seed: 61, defectRate: 0, accountNumberPrefix: `${supplier}-` });
    const runId = uniqueId('run-ghost-');
    await runToEnd(e, {
      runId,
      supplierCode: supplier,
      selection: listOf(e, runId, truth),
      concurrency: 1,
    });
    const ext = truth[0].external_account_number;
    const row = (await attempts(e, runId)).get(ext);
    expect(row).toMatchObject({ outcome: 'failed', error_code: 'import_process_failed_validation', error_attr: 'import_supplier' });
    expect(await errorsOf(runId, ext)).toEqual([
      { stage: 'platform', code: 'import_process_failed_validation', attr: 'non_field_errors' },
      { stage: 'platform', code: 'invalid_choice', attr: 'import_supplier' },
    ]);
  });

  it('as an error event: the validate endpoint is asked and what it says is recorded', async () => {
    const truth = await seedAccounts(e, { accounts: 1, seed: 62, defectRate: 0, accountNumberPrefix: `${uniqueId('IPFV')}-` });
    const ext = truth[0].external_account_number;
    await sandbox(e, 'PUT', '/admin/forced-outcomes', {
      [ext]: { outcome: 'error', error_code: 'import_process_failed_validation', error_detail: 'Validate the import process.' },
    });
    const runId = uniqueId('run-ipfv-');
    await runToEnd(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, [ext]) }, concurrency: 1 });
    expect((await attempts(e, runId)).get(ext)).toMatchObject({ outcome: 'failed', stage: 'platform', error_code: 'import_process_failed_validation' });
    // The payload is valid on validate here, so the process code is all there is; the row's attr
    // shows it was written by the explanation, not by the outcome record.
    expect(await errorsOf(runId, ext)).toEqual([{ stage: 'platform', code: 'import_process_failed_validation', attr: 'non_field_errors' }]);
  });
});
