import { createPool } from '../../clients/db';
import { COMPONENTS, migrate } from '../../db/migrate';
import { writeDatasetToFiles } from './dataset-files';
import { writeDatasetToPostgres } from './dataset-postgres';
import { generateDataset } from './generator';

/**
 * `kraken-migrate generate --accounts N --seed S [--out DIR]`: a synthetic legacy dataset with
 * known defects, as export files (`--out`) and/or loaded into the legacy database (`databaseUrl`,
 * documents written to `documentsDir`). Same seed → same data.
 */

export interface GenerateCommandOptions {
  accounts: number;
  seed: number;
  out?: string;
  databaseUrl?: string;
  documentsDir: string;
  defectRate?: number;
  /** Account number prefix (default `LGC-`): lets several datasets share one legacy schema. */
  accountNumberPrefix?: string;
  log?: (line: string) => void;
}

export interface GenerateCommandResult {
  accounts: number;
  files?: { dir: string; records: number; documents: number };
  postgres?: { records: number; rows: number; documents: number; ms: number };
}

export class GenerateError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GenerateError';
  }
}

export async function generateCommand(opts: GenerateCommandOptions): Promise<GenerateCommandResult> {
  if (!Number.isInteger(opts.accounts) || opts.accounts < 1) throw new GenerateError('generate_invalid_accounts', '--accounts must be a positive integer');
  if (!Number.isInteger(opts.seed)) throw new GenerateError('generate_invalid_seed', '--seed must be an integer');
  if (!opts.out && !opts.databaseUrl) throw new GenerateError('generate_no_target', 'give --out DIR and/or a database to load into');
  const log = opts.log ?? (() => {});
  const gen = (accountIdOffset = 0) =>
    generateDataset({ accounts: opts.accounts, seed: opts.seed, defectRate: opts.defectRate, accountNumberPrefix: opts.accountNumberPrefix, accountIdOffset });
  const result: GenerateCommandResult = { accounts: opts.accounts };

  if (opts.out) {
    const w = await writeDatasetToFiles(opts.out, gen());
    result.files = { dir: opts.out, records: w.records, documents: w.documents };
    log(`wrote ${w.accounts} accounts (${w.records} records, ${w.documents} documents) to ${opts.out}`);
  }
  if (opts.databaseUrl) {
    await migrate(opts.databaseUrl, COMPONENTS.legacy);
    const pool = createPool(opts.databaseUrl, 4);
    try {
      // Datasets may share the legacy schema (several prefixes): ids continue after the highest one,
      // but the same account numbers are never loaded twice.
      const first = gen().next().value?.source.account.account_number;
      const clash = await pool.query('SELECT 1 FROM legacy.accounts WHERE account_number = $1 LIMIT 1', [first]);
      if ((clash.rowCount ?? 0) > 0) {
        throw new GenerateError('generate_accounts_exist', `account ${first} is already in the legacy schema: use another --prefix or an empty schema`);
      }
      const max = await pool.query<{ n: number }>('SELECT coalesce(max(account_id), 0)::bigint AS n FROM legacy.accounts');
      const accountIdOffset = Number(max.rows[0].n);
      const loaded = await writeDatasetToPostgres(pool, gen(accountIdOffset), {
        documentsDir: opts.documentsDir,
        onProgress: (n) => log(`loaded ${n}/${opts.accounts} accounts`),
      });
      result.postgres = { records: loaded.records, rows: loaded.rows, documents: loaded.documents, ms: loaded.ms };
      log(`loaded ${loaded.accounts} accounts (${loaded.rows} rows) into the legacy schema in ${(loaded.ms / 1000).toFixed(1)} s`);
    } finally {
      await pool.end();
    }
  }
  return result;
}
