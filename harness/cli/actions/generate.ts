// What `kraken-migrate generate` does. cli/commands/generate.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import path from 'node:path';
import { GenerateError, generateCommand as generateDataset } from '../../synthetic/generate-cli';
import { loadCliContext, ROOT } from '../../../cli/context';
import { usageError } from '../../../cli/errors';
import { info, printJson, println } from '../../../cli/output';

export async function generateAction(opts: {
  accounts: number;
  seed: number;
  out?: string;
  defectRate?: number;
  prefix?: string;
  json?: boolean;
}): Promise<void> {
  const ctx = loadCliContext();
  if (!opts.out && !ctx.cfg.DATABASE_URL) {
    throw usageError('database_url_missing', 'DATABASE_URL is not set and no running dev stack provides it: start one (kraken-migrate dev) or use --out DIR');
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
}
