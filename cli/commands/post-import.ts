import type { Command } from 'commander';
import { declareOptions } from '../option-table';
import { DELTA_OPTIONS, RECONCILE_OPTIONS } from '../options/post-import';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const postImportActions = (): typeof import('../actions/post-import') => require('../actions/post-import');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the ledger alone: no Temporal or platform client to load
const listActions = (): typeof import('../actions/ledger-lists') => require('../actions/ledger-lists');

/** `run reconcile` and `run delta`: after-import checks and changes carried over (docs/operator-guide.md, "After creation"). */
export function addPostImportRunCommands(run: Command): void {
  declareOptions(run.command('reconcile <runId>'), RECONCILE_OPTIONS)
    .description("re-read a finished run's completed accounts from the platform and compare them with what was sent (changes nothing on the platform)")
    .addHelpText(
      'after',
      `
Differences (dot path, expected, found) are kept in the ledger and listed by \`report\`.
Exit code 1 when any account differs. --list prints the selection (the run's completed accounts
with a platform account number) through the same query, and checks nothing.

Example:
  $ kraken-migrate run reconcile run-20250601-120000-ab12`,
    )
    .action(async (runId: string, opts) => (opts.list ? listActions().reconcileListAction(runId, opts) : postImportActions().reconcileRunAction(runId, opts)));

  declareOptions(run.command('delta <runId>'), DELTA_OPTIONS)
    .description(
      "carry over what changed in the source since extraction (notes, transactions, statements, payment instructions) for a run's completed accounts",
    )
    .addHelpText(
      'after',
      `
Each item goes to its v1 post-import endpoint once: a second delta, a retry or a worker crash
never creates a second note or transaction (the item's own identifier, and the ledger).
Exit code 1 when an item ended post_import_failed; retry those with
  $ kraken-migrate run rerun-failed <runId> --stage post-import

Example:
  $ kraken-migrate run delta run-20250601-120000-ab12`,
    )
    .action(async (runId: string, opts) => postImportActions().deltaRunAction(runId, opts));
}
