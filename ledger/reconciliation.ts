import type { Pool } from '../clients/db';
import type { Difference, FieldTally } from '../reconcile/compare';
import { accountLines, type AccountLines } from './account-lines';
import { openJson, SEALED, sealJson } from './sealing';
import type { SqlPart } from './outcome-columns';

/**
 * `migrate.reconciliations` and `migrate.reconciliation_differences`: the latest check of each
 * created account against what was sent. Differences hold values (personal data): they stay here.
 */

export interface ReconciliationRow {
  runId: string;
  externalAccountNumber: string;
  platformAccountNumber: string;
  status: 'matched' | 'differing' | 'account_missing';
  checkedFields: number;
  /** Leaves compared and equal; leaves the payload determines that the record does not contain. */
  matchedFields?: number;
  unverifiedFields?: number;
  /** Per field (indexes as `*`): leaves matched, differing, unverified. */
  byField?: Record<string, FieldTally>;
  differences: Difference[];
  checkedBy: 'workflow' | 'reconcile_command';
  /** Opening balance in pence (decimal strings): as sent, and as the platform shows it. */
  sourceBalancePence?: string;
  platformBalancePence?: string;
}

export interface RunCheckpoint {
  counts: { inSource: number; sent: number; created: number; reconciled: number; differing: number };
  balances: BalanceTotals;
  reviewSample: ReviewSampleAccount[];
}

export interface ReviewSampleAccount {
  externalAccountNumber: string;
  accountNumber: string;
  supplierCode: string;
  outcome: string;
}

/** The run's balance checkpoint: totals in pence (decimal strings, exact) over the accounts checked. */
export interface BalanceTotals {
  /** Accounts whose balance was read back. */
  accounts: number;
  sourcePence: string;
  platformPence: string;
  /** platform − source. */
  differencePence: string;
}

/** One field of a run: accounts where it differed, where the record did not contain it, and where it matched (in that order of precedence). */
export interface FieldSummary {
  field: string;
  matched: number;
  differing: number;
  unverified: number;
}

export interface ReconciliationSummary {
  checked: number;
  matched: number;
  differing: number;
  missing: number;
  /** Accounts with at least one field the platform's record does not contain. */
  unverified: number;
  /** Differing accounts by field (`customers.*.family_name` → accounts). */
  byField: Record<string, number>;
  /** Accounts by field whose record did not contain it (`balance` → accounts). */
  unverifiedByField: Record<string, number>;
  /** Every field checked: accounts matched, differing, unverified. */
  fields: FieldSummary[];
  balances: BalanceTotals;
}

/** The account's check, replacing the previous one ($1…$10 as `record` passes them). */
const UPSERT = `insert into migrate.reconciliations (run_id, external_account_number, platform_account_number, status, checked_fields, differing_fields, checked_by, matched_fields, unverified_fields, field_counts, source_balance_pence, platform_balance_pence, checked_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, now())
  on conflict (run_id, external_account_number) do update set platform_account_number = excluded.platform_account_number,
    status = excluded.status, checked_fields = excluded.checked_fields, differing_fields = excluded.differing_fields,
    checked_by = excluded.checked_by, matched_fields = excluded.matched_fields, unverified_fields = excluded.unverified_fields,
    field_counts = excluded.field_counts, source_balance_pence = excluded.source_balance_pence,
    platform_balance_pence = excluded.platform_balance_pence, checked_at = now()`;

/** The account's previous differences, gone before a check's are written ($1 run, $2 account). */
const FORGET_DIFFERENCES = 'delete from migrate.reconciliation_differences where run_id = $1 and external_account_number = $2';

/** A run's accounts a read-back checks (its partial index: account_attempts_reconcilable). */
const RECONCILABLE = `run_id = $1 and outcome in ('completed', 'completed_with_differences') and not dry_run and platform_account_number is not null`;

export function createReconciliationLedger(pool: Pool) {
  return {
    /**
     * Replaces the account's previous check (a re-check supersedes it). With `outcome` (the record
     * step's read-back: `outcomeUpdate` of ledger/outcome-columns.ts, its values numbered from the
     * number it is given), the account's outcome is set in the same statement or transaction, a
     * round trip fewer on every created account; returns whether it set the outcome (false: one was
     * recorded already).
     */
    async record(r: ReconciliationRow, outcome?: (first: number) => SqlPart): Promise<boolean> {
      const counts = Object.fromEntries(Object.entries(r.byField ?? {}).map(([f, t]) => [f, [t.matched, t.differing, t.unverified]]));
      const row = [
        r.runId,
        r.externalAccountNumber,
        r.platformAccountNumber,
        r.status,
        r.checkedFields,
        r.differences.length,
        r.checkedBy,
        r.matchedFields ?? 0,
        r.unverifiedFields ?? 0,
        JSON.stringify(counts),
        r.sourceBalancePence ?? null,
        r.platformBalancePence ?? null,
      ];
      const key = [r.runId, r.externalAccountNumber];
      if (r.differences.length === 0) {
        // The common case (every matching account): one statement, atomic on its own.
        const gone = `with gone as (${FORGET_DIFFERENCES})`;
        if (!outcome) {
          await pool.query(`${gone} ${UPSERT}`, row);
          return false;
        }
        const set = outcome(row.length + 1);
        const x = await pool.query<{ set: number }>(
          `${gone}, checked as (${UPSERT}), outcome as (${set.sql} returning 1) select count(*)::int as set from outcome`,
          [...row, ...set.values],
        );
        return x.rows[0].set > 0;
      }
      // Differences replace the previous ones under the same keys: a transaction, delete before insert.
      // The outcome first: the statement above takes the attempt's counters (its triggers) before the
      // checks' counters, and two orders on one counter shard deadlock (test/unit/ledger/outcome-counts.test.ts).
      const client = await pool.connect();
      try {
        await client.query('begin');
        let set = false;
        if (outcome) {
          const u = outcome(key.length + 1);
          set = ((await client.query(u.sql, [...key, ...u.values])).rowCount ?? 0) > 0;
        }
        await client.query(UPSERT, row);
        await client.query(FORGET_DIFFERENCES, key);
        await client.query(
          `insert into migrate.reconciliation_differences (run_id, external_account_number, path, field, expected, found)
           select $1, $2, * from unnest($3::text[], $4::text[], $5::jsonb[], $6::jsonb[])`,
          [
            ...key,
            r.differences.map((d) => d.path),
            r.differences.map((d) => d.field),
            r.differences.map((d) => sealJson(pool, SEALED.differenceExpected, d.expected)),
            r.differences.map((d) => sealJson(pool, SEALED.differenceFound, d.found)),
          ],
        );
        await client.query('commit');
        return set;
      } catch (e) {
        await client.query('rollback').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },

    /** Completed accounts of a run with their platform account number, keyset-paged. */
    async completedAccounts(
      runId: string,
      after: string | undefined,
      limit: number,
    ): Promise<Array<{ externalAccountNumber: string; accountNumber: string; supplierCode: string }>> {
      const r = await pool.query<{ external_account_number: string; platform_account_number: string; supplier_code: string }>(
        `select external_account_number, platform_account_number, supplier_code from migrate.account_attempts
          where ${RECONCILABLE}
            and ($2::text is null or external_account_number > $2)
          order by external_account_number limit $3`,
        [runId, after ?? null, limit],
      );
      return r.rows.map((x) => ({ externalAccountNumber: x.external_account_number, accountNumber: x.platform_account_number, supplierCode: x.supplier_code }));
    },

    /** The numbers alone of the accounts completedAccounts pages through, a page as lines (`run reconcile --list`): index-only. */
    completedAccountLines(runId: string, after: string | undefined, limit: number): Promise<AccountLines> {
      return accountLines(pool, RECONCILABLE, [runId], after, limit);
    },

    /**
     * A sample of `n` completed accounts for review by hand (the go/no-go evidence): spread over the
     * run by a hash of the account number, so the same run gives the same sample on every report.
     * Read in that order from its index (account_attempts_review_sample), not sorted from every completed account.
     */
    async reviewSample(runId: string, n: number): Promise<ReviewSampleAccount[]> {
      const r = await pool.query<{ external_account_number: string; platform_account_number: string; supplier_code: string; outcome: string }>(
        `select external_account_number, platform_account_number, supplier_code, outcome from migrate.account_attempts
          where ${RECONCILABLE}
          order by md5(external_account_number), external_account_number limit $2`,
        [runId, n],
      );
      return r.rows.map((x) => ({
        externalAccountNumber: x.external_account_number,
        accountNumber: x.platform_account_number,
        supplierCode: x.supplier_code,
        outcome: x.outcome,
      }));
    },

    /**
     * The run's checkpoint, the evidence a go/no-go is given on: accounts in the source (each
     * selected account has a ledger row), sent (scheduled with the platform), created, reconciled
     * (read back) and differing; the balance totals; and a sample of completed accounts to review.
     */
    async checkpoint(runId: string, sampleSize = 20): Promise<RunCheckpoint> {
      const [counts, summary, sample] = await Promise.all([
        // Kept per run by the attempts table's triggers (db/migrations/1797700000000_run_checkpoint_counts.sql).
        pool.query<{ in_source: number; sent: number; created: number }>(
          `select coalesce(sum(attempts), 0)::int as in_source, coalesce(sum(sent), 0)::int as sent, coalesce(sum(created), 0)::int as created
             from migrate.run_checkpoint_counts where run_id = $1`,
          [runId],
        ),
        this.summary(runId),
        this.reviewSample(runId, sampleSize),
      ]);
      const c = counts.rows[0];
      return {
        counts: { inSource: c.in_source, sent: c.sent, created: c.created, reconciled: summary.checked, differing: summary.differing + summary.missing },
        balances: summary.balances,
        reviewSample: sample,
      };
    },

    async summary(runId: string): Promise<ReconciliationSummary> {
      const totals = await pool.query<{ status: string; n: number }>(
        // Kept per run by the reconciliations table's statement triggers (db/migrations/1797400000000_run_outcome_summaries.sql),
        // in 16 rows a run (1798200000000_reconciliation_counts_one_statement.sql, as the sums below).
        'select status, sum(n)::int as n from migrate.reconciliation_status_counts where run_id = $1 group by status having sum(n) <> 0',
        [runId],
      );
      const by = await pool.query<{ field: string; n: number }>(
        'select field, count(distinct external_account_number)::int as n from migrate.reconciliation_differences where run_id = $1 group by field order by n desc, field',
        [runId],
      );
      // Per field and account, differing over unverified over matched: kept per run by the
      // reconciliations table's statement triggers (db/migrations/1796000000000_operator_queries_at_scale.sql),
      // the checks whose every field matched as a count per set of fields (1798200000000_reconciliation_counts_one_statement.sql).
      const fields = await pool.query<FieldSummary & { accounts_unverified: number }>(
        `select field, sum(matched)::int as matched, sum(differing)::int as differing, sum(unverified)::int as unverified,
                sum(any_unverified)::int as accounts_unverified
           from (select field, matched, differing, unverified, any_unverified from migrate.reconciliation_field_totals where run_id = $1
                 union all
                 select f.field, c.n, 0, 0, 0 from migrate.reconciliation_clean_fields c cross join unnest(c.fields) as f (field) where c.run_id = $1) t
          group by field having sum(matched) <> 0 or sum(differing) <> 0 or sum(unverified) <> 0 or sum(any_unverified) <> 0 order by field`,
        [runId],
      );
      // Unverified accounts and balance totals: kept per run by the same table's statement triggers
      // (db/migrations/1797700000000_run_checkpoint_counts.sql); no row yet, nothing checked.
      const kept = await pool.query<{ unverified: number; accounts: number; source: string; platform: string; difference: string }>(
        // trim_scale: a running sum keeps the scale of every value it ever held; a total shows the scale it needs.
        `select sum(unverified)::int as unverified, sum(balance_accounts)::int as accounts, trim_scale(sum(source_pence))::text as source,
                trim_scale(sum(platform_pence))::text as platform, trim_scale(sum(platform_pence) - sum(source_pence))::text as difference
           from migrate.reconciliation_run_totals where run_id = $1 having count(*) > 0`,
        [runId],
      );
      const m = kept.rows[0] ?? { unverified: 0, accounts: 0, source: '0', platform: '0', difference: '0' };
      const n = (s: string) => totals.rows.find((r) => r.status === s)?.n ?? 0;
      return {
        checked: totals.rows.reduce((a, r) => a + r.n, 0),
        matched: n('matched'),
        differing: n('differing'),
        missing: n('account_missing'),
        unverified: m.unverified,
        byField: Object.fromEntries(by.rows.map((r) => [r.field, r.n])),
        unverifiedByField: Object.fromEntries(fields.rows.filter((r) => r.accounts_unverified > 0).map((r) => [r.field, r.accounts_unverified])),
        fields: fields.rows.map(({ field, matched, differing, unverified }) => ({ field, matched, differing, unverified })),
        balances: { accounts: m.accounts, sourcePence: m.source, platformPence: m.platform, differencePence: m.difference },
      };
    },

    /**
     * Each account's fields that its record did not contain (names and leaf counts only), for the
     * CSV: a page of accounts after `after` (keyset on the account number).
     */
    async unverifiedFields(
      runId: string,
      page: { after?: string; limit?: number } = {},
    ): Promise<Array<{ externalAccountNumber: string; differing: boolean; field: string; leaves: number }>> {
      const r = await pool.query<{ external_account_number: string; status: string; field: string; leaves: number }>(
        `select r.external_account_number, r.status, f.key as field, (f.value->>2)::int as leaves
           from (select external_account_number, status, field_counts from migrate.reconciliations
                  where run_id = $1 and unverified_fields > 0 and ($2::text is null or external_account_number > $2)
                  order by external_account_number limit $3) r
          cross join lateral jsonb_each(r.field_counts) f
          where (f.value->>2)::int > 0
          order by r.external_account_number, f.key`,
        [runId, page.after ?? null, page.limit ?? null],
      );
      return r.rows.map((x) => ({ externalAccountNumber: x.external_account_number, differing: x.status !== 'matched', field: x.field, leaves: x.leaves }));
    },

    /** Differences of a run (values included — operator output only): a page after (account, path), by the primary key. */
    async differences(
      runId: string,
      page: { after?: { externalAccountNumber: string; path: string }; limit?: number } = {},
    ): Promise<Array<{ externalAccountNumber: string; path: string; field: string; expected: unknown; found: unknown }>> {
      const r = await pool.query<{ external_account_number: string; path: string; field: string; expected: unknown; found: unknown }>(
        `select external_account_number, path, field, expected, found from migrate.reconciliation_differences
          where run_id = $1 and ($2::text is null or (external_account_number, path) > ($2, $3))
          order by external_account_number, path limit $4`,
        [runId, page.after?.externalAccountNumber ?? null, page.after?.path ?? null, page.limit ?? null],
      );
      return r.rows.map((x) => ({
        externalAccountNumber: x.external_account_number,
        path: x.path,
        field: x.field,
        expected: openJson(pool, SEALED.differenceExpected, x.expected),
        found: openJson(pool, SEALED.differenceFound, x.found),
      }));
    },

    /** Every difference of the first `accounts` differing accounts (by number): the report's examples. */
    async differenceExamples(
      runId: string,
      accounts: number,
    ): Promise<Array<{ externalAccountNumber: string; path: string; field: string; expected: unknown; found: unknown }>> {
      const r = await pool.query<{ external_account_number: string; path: string; field: string; expected: unknown; found: unknown }>(
        `select d.external_account_number, d.path, d.field, d.expected, d.found from migrate.reconciliation_differences d
          where d.run_id = $1 and d.external_account_number in (
            select distinct external_account_number from migrate.reconciliation_differences where run_id = $1 order by 1 limit $2)
          order by d.external_account_number, d.path`,
        [runId, accounts],
      );
      return r.rows.map((x) => ({
        externalAccountNumber: x.external_account_number,
        path: x.path,
        field: x.field,
        expected: openJson(pool, SEALED.differenceExpected, x.expected),
        found: openJson(pool, SEALED.differenceFound, x.found),
      }));
    },
  };
}

export type ReconciliationLedger = ReturnType<typeof createReconciliationLedger>;
