import { createPool } from '../../../clients/db';
import { createPlatformClient } from '../../../clients/platform';
import type { Config } from '../../../config';
import { checkAccount } from '../../../activities/read-back';

/**
 * What the mission asks of every account beyond the script's work, at its least: the account read
 * back and compared with what was sent (the pipeline's own `checkAccount`: the REST record and the
 * GraphQL account), and one outcome a statement in Postgres. No per-step durability, no window, no
 * event route: the `ceiling-kept` pass (floor/run.ts) measures how far these two promises alone move
 * the ceiling, the bound for a pipeline that keeps them.
 */
export interface KeptPromises {
  /** Reads the created account back, compares it with `payload` and records the account's one outcome. */
  keep(ext: string, accountNumber: string, payload: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function createKeptPromises(cfg: Config, poolSize: number): Promise<KeptPromises> {
  const pool = createPool(cfg.DATABASE_URL!, poolSize);
  const platform = createPlatformClient(cfg);
  await pool.query(`create schema if not exists bench;
    create table if not exists bench.ceiling_outcomes (
      external_account_number text primary key, account_number text not null, status text not null,
      checked_fields int not null, differing int not null, recorded_at timestamptz not null default now())`);
  return {
    async keep(ext, accountNumber, payload) {
      // The payload is in the activity's hands: what the ledger would give back is what was sent.
      const ledger = { loadPayload: async <T, D>() => ({ request: { payload } as T, documents: [] as D[] }) };
      const { result } = await checkAccount(
        { ledger, platform },
        { runId: 'bench-ceiling-kept', supplierCode: cfg.IMPORT_SUPPLIER_CODE, externalAccountNumber: ext, accountNumber, checkedBy: 'workflow' },
      );
      // A bench whose read-backs found nothing would price a cheaper step than the pipeline's: such an account fails the pass.
      if (result.status !== 'matched') throw new Error(`account ${ext} read back ${result.status}: ${result.fields.join(', ')}`);
      await pool.query(
        `insert into bench.ceiling_outcomes (external_account_number, account_number, status, checked_fields, differing)
         values ($1, $2, $3, $4, $5) on conflict (external_account_number) do nothing`,
        [ext, accountNumber, result.status, result.checked, result.differing],
      );
    },
    close: () => pool.end(),
  };
}
