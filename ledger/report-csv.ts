import type { Pool } from '../clients/db';
import { differenceCsvRow, postImportFailedCsvRow, unverifiedCsvRow } from './after-import-report';
import { createPostImportLedger } from './post-import-items';
import { createReconciliationLedger } from './reconciliation';
import { openString, SEALED } from './sealing';
import { maskedDifference, personalValuesByAccount, reportDetail } from './report-masking';

/** failed-accounts.csv's columns (cli/README.md, "Reports"). */
export const CSV_HEADER = ['external_account_number', 'outcome', 'stage', 'code', 'attr', 'detail', 'source_field'] as const;

/**
 * Every row of a run's failed-accounts.csv, page by page (keyset paging, `pageSize` accounts or
 * rows a query), so a run with tens of thousands of failures is written with flat memory: one row
 * per error of every failed or not-attempted account (at least one per account), then each
 * reconciliation difference, each field a record did not contain, each failed post-import item.
 * Personal values are masked as `validate` masks them (ledger/report-masking.ts).
 */
export async function* reportCsvRows(pool: Pool, runId: string, pageSize = 10_000): AsyncGenerator<string[]> {
  for (let after: string | null = null; ;) {
    // Accounts without error rows (e.g. not attempted) still get one row, from the attempt itself.
    const r: { rows: Array<Record<string, string | null>> } = await pool.query(
      `with page as (
         select external_account_number, outcome, stage, error_code, error_attr from migrate.account_attempts
          where run_id = $1 and outcome in ('failed', 'not_attempted') and ($2::text is null or external_account_number > $2)
          order by external_account_number limit $3)
       select p.external_account_number, p.outcome, coalesce(e.stage, p.stage) as stage, coalesce(e.code, p.error_code, 'unknown') as code,
              coalesce(e.attr, p.error_attr, '') as attr, coalesce(e.detail, '') as detail, coalesce(e.source_field, '') as source_field
         from page p
         -- The page's errors by their index, bounded by the page's first and last account: a merge
         -- of two ordered ranges (the planner otherwise hashed every error of the ledger per page).
         left join migrate.account_errors e on e.run_id = $1 and e.external_account_number = p.external_account_number
               and ($2::text is null or e.external_account_number > $2) and e.external_account_number <= (select max(external_account_number) from page)
        order by p.external_account_number, e.id`,
      [runId, after, pageSize],
    );
    const personal = await personalValuesByAccount(
      pool,
      runId,
      r.rows.filter((x) => x.detail).map((x) => x.external_account_number!),
    );
    for (const x of r.rows) {
      const detail = reportDetail(
        openString(pool, SEALED.errorDetail, x.detail!),
        { attr: x.attr, sourceField: x.source_field },
        personal.get(x.external_account_number!),
      );
      yield [x.external_account_number!, x.outcome!, x.stage!, x.code!, x.attr!, detail, x.source_field!];
    }
    if (new Set(r.rows.map((x) => x.external_account_number)).size < pageSize) break;
    after = r.rows[r.rows.length - 1].external_account_number;
  }
  const recon = createReconciliationLedger(pool);
  for (let after: { externalAccountNumber: string; path: string } | undefined; ;) {
    const page = await recon.differences(runId, { after, limit: pageSize });
    for (const d of page) yield differenceCsvRow(maskedDifference(d));
    if (page.length < pageSize) break;
    after = page[page.length - 1];
  }
  for (let after: string | undefined; ;) {
    const page = await recon.unverifiedFields(runId, { after, limit: pageSize });
    for (const u of page) yield unverifiedCsvRow(u);
    if (page.length === 0) break;
    after = page[page.length - 1].externalAccountNumber;
  }
  const items = createPostImportLedger(pool);
  for (let after: { externalAccountNumber: string; kind: string; key: string } | undefined; ;) {
    const page = await items.failedItems(runId, { after, limit: pageSize });
    for (const f of page) yield postImportFailedCsvRow({ ...f, detail: f.detail && reportDetail(f.detail, { attr: f.attr }) });
    if (page.length < pageSize) break;
    after = page[page.length - 1];
  }
}
