import type { Pool } from '../../clients/db';
import { withCpu, type CpuGroup } from './cpu-groups';
import { pgPassStats, pgSnapshot, sandboxBackendPids, type PgPassStats } from './pg-statements';

/**
 * One pass's cost: CPU per account by process group (`cpu-groups.ts`; the sandbox's Postgres backends
 * apart from the pipeline's, known by their application_name) and, when the server keeps
 * statement statistics, what Postgres ran for it (`pg-statements.ts`), both per completed account.
 */
export async function withPassCost<T extends { completed: number }>(
  pool: Pool | undefined,
  pass: () => Promise<T>,
  reapedAs?: CpuGroup,
): Promise<T & { cpuMsPerAccount: Partial<Record<CpuGroup, number>>; postgres?: PgPassStats }> {
  const before = pool ? await pgSnapshot(pool) : undefined;
  const r = await withCpu(pass, reapedAs, pool ? () => sandboxBackendPids(pool) : undefined);
  if (!pool || !before) return r;
  return { ...r, postgres: pgPassStats(before, await pgSnapshot(pool), r.completed) };
}
