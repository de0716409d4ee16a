import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { ROOT, loadCliContext, withServices } from '../context';
import { usageError } from '../errors';
import { runRow } from '../../ledger';
import { printJson, println } from '../output';
import { generateChangesForRun } from '../post-import-changes';

function share(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n <= 1)) throw usageError('invalid_share', `--share ${JSON.stringify(v)}: a number in (0, 1]`);
  return n;
}

export function generateChangesCommand(): Command {
  return new Command('generate-changes')
    .description(
      "synthetic changes after extraction (notes, transactions, statements, payment instructions) for a share of a run's completed accounts, with ground truth",
    )
    .requiredOption('--run <runId>', 'the run whose completed accounts change')
    .option('--share <r>', 'share of accounts that get changes', share, 0.3)
    .option('--seed <n>', 'seed (another seed: another day of changes)', (v) => Number.parseInt(v, 10), 1)
    .option('--truth <file>', 'write the ground truth (account → kind → count) to FILE')
    .option('--json', 'print the ground truth')
    .addHelpText(
      'after',
      '\nExample:\n  $ kraken-migrate generate-changes --run run-20250601-120000-ab12 --share 0.3 && kraken-migrate run delta run-20250601-120000-ab12',
    )
    .action(async (opts) => {
      const ctx = loadCliContext();
      await withServices(ctx, async (s) => {
        const pool = await s.db();
        const run = await runRow(pool, opts.run);
        if (!run) throw usageError('run_not_found', `no run ${opts.run} in the ledger`);
        const g = await generateChangesForRun(pool, {
          runId: opts.run,
          source: run.source,
          share: opts.share,
          seed: opts.seed,
          documentsDir: path.resolve(ROOT, ctx.cfg.SOURCE_DOCUMENTS_DIR),
        });
        if (opts.truth) fs.writeFileSync(opts.truth, JSON.stringify(g.truth, null, 2));
        if (opts.json) return printJson({ accounts: Object.keys(g.truth).length, items: g.changes.length, truth: g.truth });
        println(
          `Generated ${g.changes.length} changes for ${Object.keys(g.truth).length} accounts of ${opts.run}${opts.truth ? ` (ground truth in ${opts.truth})` : ''}.`,
        );
      });
    });
}
