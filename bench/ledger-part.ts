/**
 * The ledger part of `run status` and `run list`, for timing them on a seeded ledger without
 * Temporal (README, "Operator commands at a million rows"): the same calls, with the same
 * arguments, that cli/commands/run.ts makes once Temporal has answered. The other timed commands
 * (`report`, `rerun-failed --list`, `reconcile --list`) need no Temporal and are timed as they are.
 *
 *   DATABASE_URL=… npx tsx bench/ledger-part.ts status <runId>
 *   DATABASE_URL=… npx tsx bench/ledger-part.ts list <runId>…
 */
import { createPool } from '../clients/db';
import { ledgerProgress, runRow, runRows } from '../ledger';
import { postImportStatus } from '../cli/post-import';

async function main(): Promise<void> {
  const [what, ...runIds] = process.argv.slice(2);
  if (!['status', 'list'].includes(what) || runIds.length === 0 || !process.env.DATABASE_URL) {
    process.stderr.write('usage: DATABASE_URL=… tsx bench/ledger-part.ts status <runId> | list <runId>…\n');
    process.exit(2);
  }
  const pool = createPool(process.env.DATABASE_URL, 4);
  try {
    const started = performance.now();
    // As runStatus (cli/commands/run.ts) runs them: in parallel, beside Temporal's describe and query.
    const out =
      what === 'status'
        ? await Promise.all([runRow(pool, runIds[0]), ledgerProgress(pool, runIds[0], 10), postImportStatus(pool, runIds[0])]).then(([row, ledger, after]) => ({ status: row?.status, ...ledger, ...after }))
        : Object.fromEntries(await runRows(pool, runIds));
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify(out)}\n`);
    process.stderr.write(`ledger part: ${ms.toFixed(0)} ms, RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
  } finally {
    await pool.end();
  }
}

void main();
