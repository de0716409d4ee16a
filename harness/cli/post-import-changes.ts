import fs from 'node:fs';
import path from 'node:path';
import type { Pool } from '../../clients/db';
import { createReconciliationLedger } from '../../ledger/reconciliation';
import { writeChanges } from '../../source/changes';
import { generateChanges, type GeneratedChanges } from '../synthetic/generate-changes';
import type { SourceSpecRef } from '../../domain/inputs';

/**
 * A generated "day of changes" for a share of a run's completed accounts, written where the run's
 * source keeps them (legacy.account_changes, or the file export's .changes.jsonl) with the
 * statements' PDFs in the source documents folder. Recorded now: after every extraction.
 */
export async function generateChangesForRun(
  pool: Pool,
  opts: { runId: string; source: SourceSpecRef; share: number; seed: number; documentsDir: string; recordedAt?: Date },
): Promise<GeneratedChanges> {
  const recon = createReconciliationLedger(pool);
  const accounts: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await recon.completedAccounts(opts.runId, after, 1000);
    accounts.push(...page.map((a) => a.externalAccountNumber));
    if (page.length < 1000) break;
    after = page[page.length - 1].externalAccountNumber;
  }
  const g = generateChanges({ accounts, share: opts.share, seed: opts.seed, recordedAt: opts.recordedAt ?? new Date() });
  for (const d of g.documents) {
    const file = path.join(opts.documentsDir, d.relativePath);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, d.bytes);
  }
  await writeChanges(opts.source, g.changes, { pool });
  return g;
}
