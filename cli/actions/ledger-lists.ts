// `run rerun-failed --list` and `run reconcile --list`: the ledger alone, so this module imports
// nothing of Temporal, the platform client or the AWS SDK: the command's start is most of its time
// at a million accounts (docs/throughput.md, "Operator answers at a million rows").
import type { Pool } from '../../clients/db';
import { optionsSchema, parseOptions } from '../option-schema';
import { RECONCILE_OPTIONS } from '../options/post-import';
import { RERUN_FAILED_OPTIONS } from '../options/run';
import type { AccountLines } from '../../ledger/account-lines';
import { loadCliContext, withServices } from '../context';
import { usageError } from '../errors';
import { createLedger, type Ledger } from '../../ledger/attempts';
import { createReconciliationLedger } from '../../ledger/reconciliation';
import { runRow } from '../../ledger/run-queries';
import { info, printLines } from '../output';

/** Accounts a `--list` query reads at once (keyset pages: the same accounts whatever the size), joined into one text by Postgres. */
const LIST_PAGE = 50_000;

/** Pages of lines until one comes back short. */
async function* pagesOf(size: number, page: (after: string | undefined, limit: number) => Promise<AccountLines>): AsyncGenerator<AccountLines> {
  for (let after: string | undefined; ;) {
    const p = await page(after, size);
    yield p;
    if (p.count < size) return;
    after = p.last;
  }
}

/** A run's failed and not-attempted accounts (those codes only, when given), page by page: what a rerun selects. */
export function failedOfRun(ledger: Ledger, runId: string, codes: string[] | undefined, pageSize = LIST_PAGE): AsyncGenerator<AccountLines> {
  return pagesOf(pageSize, (after, limit) => ledger.failedAccountLines(runId, codes, after, limit));
}

/** `run reconcile --list`: the accounts reconcileRun would read back, page by page through the same selection. */
export function reconcileSelection(pool: Pool, runId: string, pageSize = LIST_PAGE): AsyncGenerator<AccountLines> {
  const recon = createReconciliationLedger(pool);
  return pagesOf(pageSize, (after, limit) => recon.completedAccountLines(runId, after, limit));
}

async function listOf(runId: string, pages: (pool: Pool) => AsyncIterable<AccountLines>, what: (n: number) => string): Promise<void> {
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    if (!(await runRow(pool, runId))) throw usageError('run_not_found', `no run ${runId} in the ledger`);
    info(what(await printLines(pages(pool))));
  });
}

/** `run rerun-failed`'s options: `--list` is answered here, the rest by cli/actions/run.ts. */
export const rerunFailedOptionsSchema = optionsSchema(RERUN_FAILED_OPTIONS);

export function rerunFailedListAction(runId: string, options: unknown): Promise<void> {
  const codes = parseOptions(rerunFailedOptionsSchema, options).code;
  return listOf(
    runId,
    (pool) => failedOfRun(createLedger(pool), runId, codes),
    (n) => `${n} accounts of ${runId} would be rerun${codes?.length ? ` (codes ${codes.join(', ')})` : ''}.`,
  );
}

/** `run reconcile`'s options (cli/commands/post-import.ts): `--list` is answered here, the rest by cli/actions/post-import.ts. */
export const reconcileOptionsSchema = optionsSchema(RECONCILE_OPTIONS);

export function reconcileListAction(runId: string, options: unknown): Promise<void> {
  parseOptions(reconcileOptionsSchema, options);
  return listOf(
    runId,
    (pool) => reconcileSelection(pool, runId),
    (n) => `${n} accounts of ${runId} would be read back.`,
  );
}
