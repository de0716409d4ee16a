import { Context } from '@temporalio/activity';
import type { Pool } from '../clients/db';
import type { PlatformClient } from '../clients/platform';
import type { PlatformTransientError } from '../clients/platform/errors';
import { LIST_READ_RETRY, retryTransient } from '../clients/platform/retry';
import type { CensusCounts } from '../domain/census';
import { openCensus, type CensusSession, type RecordedCensus, type TenantEntry } from '../ledger/census';
import type { ActivityContext } from './deps';

/**
 * A supplier census, taken once for the CLI (`supplier census`) and a plan wave's exit gate alike:
 * the tenant's `all-account-import-processes` list streamed into the census's table (read again
 * from its start after a transient failure, `LIST_READ_RETRY`), compared with the ledger across
 * every run, recorded, then handed to `use` while its listed classes can still be read.
 */
export async function withCensus<T>(
  deps: { pool: Pool; platform: Pick<PlatformClient, 'importProcesses'> },
  args: {
    supplierCode: string;
    stuckAfterSeconds: number;
    onRetry?: (e: PlatformTransientError, attempt: number, delayMs: number) => void;
    onRows?: (n: number) => void;
  },
  use: (session: CensusSession, counts: CensusCounts) => Promise<T>,
): Promise<T> {
  const session = await openCensus(deps.pool, args.supplierCode);
  try {
    async function* tenant(): AsyncGenerator<TenantEntry> {
      let n = 0;
      for await (const p of deps.platform.importProcesses('all', args.supplierCode)) {
        // The list says imported by the account number it carries (pending ones carry none).
        yield { external: p.external_account_number, imported: !!p.kraken_account_number };
        if (++n % 10_000 === 0) args.onRows?.(n);
      }
    }
    await retryTransient(() => session.loadTenant(tenant()), LIST_READ_RETRY, { onRetry: args.onRetry });
    const counts = await session.compare(Date.now(), args.stuckAfterSeconds * 1000);
    await session.record(args.stuckAfterSeconds, counts);
    return await use(session, counts);
  } finally {
    await session.close();
  }
}

export interface CensusActivities {
  /** Takes and records a census of the supplier (a plan wave's exit gate reads its counts). */
  takeSupplierCensus(input: { supplierCode: string; stuckAfterSeconds: number }): Promise<RecordedCensus>;
}

export function censusActivities(ctx: Pick<ActivityContext, 'pool' | 'platform'>): CensusActivities {
  return {
    async takeSupplierCensus({ supplierCode, stuckAfterSeconds }) {
      // A million-entry list takes minutes: the heartbeat says it is still being read.
      const beat = (n: number) => Context.current().heartbeat({ rows: n });
      return withCensus(ctx, { supplierCode, stuckAfterSeconds, onRows: beat }, async (_s, counts) => ({
        supplierCode,
        takenAt: new Date().toISOString(),
        stuckAfterSeconds,
        counts,
      }));
    },
  };
}
