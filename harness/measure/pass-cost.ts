import type { Pool } from '../../clients/db';
import { withCpu, type CpuGroup } from './cpu-groups';
import { pgPassStats, pgSnapshot, type PgPassStats } from './pg-statements';

/**
 * One pass's cost: CPU per account by process group (`cpu-groups.ts`) and, when the server keeps
 * statement statistics, what Postgres ran for it (`pg-statements.ts`), both per completed account.
 */
export async function withPassCost<T extends { completed: number }>(
  pool: Pool | undefined,
  pass: () => Promise<T>,
  reapedAs?: CpuGroup,
): Promise<T & { cpuMsPerAccount: Partial<Record<CpuGroup, number>>; postgres?: PgPassStats }> {
  const before = pool ? await pgSnapshot(pool) : undefined;
  const r = await withCpu(pass, reapedAs);
  if (!pool || !before) return r;
  return { ...r, postgres: pgPassStats(before, await pgSnapshot(pool), r.completed) };
}
