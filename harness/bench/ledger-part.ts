/**
 * The ledger part of the operator commands, timed in-process on a seeded ledger (README,
 * "Operator commands at a million rows"): the same calls, with the same arguments, that the
 * commands make, without the CLI's start-up (about a second of tsx compiling, more on a loaded
 * host) and without Temporal (`run status` and `run list` ask it first; a seeded run is not in it).
 *
 *   DATABASE_URL=… npx tsx harness/bench/ledger-part.ts status <runId>
 *   DATABASE_URL=… npx tsx harness/bench/ledger-part.ts list <runId>…
 *   DATABASE_URL=… npx tsx harness/bench/ledger-part.ts summary <runId>
 *   DATABASE_URL=… npx tsx harness/bench/ledger-part.ts report <runId> <dir>
 *   DATABASE_URL=… npx tsx harness/bench/ledger-part.ts rerun-failed <runId> [code…]
 *   DATABASE_URL=… npx tsx harness/bench/ledger-part.ts reconcile <runId>
 *
 * Prints the command's result size on stdout, the time and the process's peak RSS on stderr.
 */
import { createPool, type Pool } from '../../clients/db';
import { parseConfig } from '../../config';
import { createLedger, createReconciliationLedger, ledgerProgress, runRow, runRows } from '../../ledger';
import { platformPace } from '../../cli/pace';
import { postImportStatus } from '../../cli/post-import';
import { buildReport } from '../../cli/report/build';
import { failedOfRun, reconcileSelection } from '../../cli/actions/ledger-lists';
import { reportSummary } from '../../cli/report/summary';

async function count(pages: AsyncIterable<{ count: number }>): Promise<number> {
  let n = 0;
  for await (const page of pages) n += page.count;
  return n;
}

const parts: Record<string, (pool: Pool, args: string[]) => Promise<unknown>> = {
  // As runStatus (cli/actions/run.ts) runs them: in parallel, beside Temporal's describe and query.
  status: async (pool, [runId]) => {
    const [row, ledger, after, checkpoint, pace] = await Promise.all([
      runRow(pool, runId),
      ledgerProgress(pool, runId, 10),
      postImportStatus(pool, runId),
      createReconciliationLedger(pool).checkpoint(runId),
      platformPace(pool, parseConfig(process.env)),
    ]);
    return { status: row?.status, ...ledger, ...after, checkpoint: checkpoint.counts, pace: pace.mode };
  },
  list: async (pool, runIds) => Object.fromEntries(await runRows(pool, runIds)),
  summary: async (pool, [runId]) => (await reportSummary(pool, runId)).totals,
  report: async (pool, [runId, dir]) => (await buildReport(pool, parseConfig(process.env), runId, dir)).data.totals,
  'rerun-failed': async (pool, [runId, ...codes]) => ({ accounts: await count(failedOfRun(createLedger(pool), runId, codes.length ? codes : undefined)) }),
  reconcile: async (pool, [runId]) => ({ accounts: await count(reconcileSelection(pool, runId)) }),
};

async function main(): Promise<void> {
  const [what, ...args] = process.argv.slice(2);
  const part = parts[what];
  if (!part || args.length === 0 || !process.env.DATABASE_URL) {
    process.stderr.write(`usage: DATABASE_URL=… tsx harness/bench/ledger-part.ts ${Object.keys(parts).join('|')} <runId> …\n`);
    process.exit(2);
  }
  // The CLI's pool size (cli/context.ts).
  const pool = createPool(process.env.DATABASE_URL, 4);
  try {
    const started = performance.now();
    const out = await part(pool, args);
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify(out).slice(0, 400)}\n`);
    process.stderr.write(`${what}: ${ms.toFixed(0)} ms, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
  } finally {
    await pool.end();
  }
}

void main();
