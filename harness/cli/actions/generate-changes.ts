// What `kraken-migrate generate-changes` does. cli/commands/generate-changes.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, loadCliContext, withServices } from '../../../cli/context';
import { usageError } from '../../../cli/errors';
import { runRow } from '../../../ledger';
import { printJson, println } from '../../../cli/output';
import { generateChangesForRun } from '../post-import-changes';

export async function generateChangesAction(opts: { run: string; share: number; seed: number; truth?: string; json?: boolean }): Promise<void> {
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
}
