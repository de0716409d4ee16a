import { Command } from 'commander';
import { usageError } from '../../../cli/errors';

function share(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n <= 1)) throw usageError('invalid_share', `--share ${JSON.stringify(v)}: a number in (0, 1]`);
  return n;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const generateChangesActions = (): typeof import('../actions/generate-changes') => require('../actions/generate-changes');

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
    .action(async (opts) => generateChangesActions().generateChangesAction(opts));
}
