import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { GenerateError, generateCommand as generateDataset } from '../../synthetic/generate-cli';
import { loadCliContext, ROOT } from '../context';
import { usageError } from '../errors';
import { info, printJson, println, positiveInt } from '../output';

const integer = (v: string) => {
  if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError('expected an integer');
  return Number(v);
};
const rate = (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a number between 0 and 1');
  return n;
};

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
    .action(async (opts) => {
      const ctx = loadCliContext();
      if (!opts.out && !ctx.cfg.DATABASE_URL) {
        throw usageError(
          'database_url_missing',
          'DATABASE_URL is not set and no running dev stack provides it: start one (kraken-migrate dev) or use --out DIR',
        );
      }
      try {
        const result = await generateDataset({
          accounts: opts.accounts,
          seed: opts.seed,
          out: opts.out ? path.resolve(opts.out) : undefined,
          databaseUrl: opts.out ? undefined : ctx.cfg.DATABASE_URL,
          documentsDir: path.resolve(ROOT, ctx.cfg.SOURCE_DOCUMENTS_DIR),
          defectRate: opts.defectRate,
          accountNumberPrefix: opts.prefix,
          log: opts.json ? () => {} : info,
        });
        if (opts.json) return printJson(result);
        println(`Generated ${result.accounts} accounts (seed ${opts.seed})${result.files ? ` in ${result.files.dir}` : ' into the legacy schema'}.`);
      } catch (e) {
        if (e instanceof GenerateError) throw usageError(e.code, e.message);
        throw e;
      }
    });
}
