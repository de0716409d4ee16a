import { Command, InvalidArgumentError } from 'commander';
import { positiveInt } from '../../../cli/output';

const integer = (v: string) => {
  if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError('expected an integer');
  return Number(v);
};
const rate = (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a number between 0 and 1');
  return n;
};

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const generateActions = (): typeof import('../actions/generate') => require('../actions/generate');

export function generateCommand(): Command {
  return new Command('generate')
    .description('generate a synthetic legacy dataset with known defects: into the legacy Postgres schema, or with --out into files')
    .requiredOption('--accounts <n>', 'number of accounts', positiveInt('--accounts'))
    .option('--seed <s>', 'random seed (same seed, same data)', integer, 42)
    .option('--out <dir>', 'write export files (accounts.jsonl, accounts.csv, expected.jsonl, documents/) instead of loading Postgres')
    .option('--defect-rate <r>', 'share of accounts with a defect (0..1, default 0.2)', rate)
    .option('--prefix <prefix>', 'account number prefix (default LGC-); several datasets can share one legacy schema')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      `
Postgres mode appends to the legacy schema (refusing account numbers it already holds) and writes documents into SOURCE_DOCUMENTS_DIR.

Examples:
  $ kraken-migrate generate --accounts 200 --seed 42
  $ kraken-migrate generate --accounts 1000 --seed 7 --defect-rate 0.4 --out ./export`,
    )
    .action(async (opts) => generateActions().generateAction(opts));
}
