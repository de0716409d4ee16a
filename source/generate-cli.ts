import { createPool } from '../clients/db';
import { COMPONENTS, migrate } from '../db/migrate';
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
  const gen = () => generateDataset({ accounts: opts.accounts, seed: opts.seed, defectRate: opts.defectRate });
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
      const existing = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM legacy.accounts');
      if (existing.rows[0].n > 0) {
        throw new GenerateError('generate_legacy_not_empty', `legacy.accounts already holds ${existing.rows[0].n} rows: generate into an empty legacy schema`);
      }
      const loaded = await writeDatasetToPostgres(pool, gen(), {
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
