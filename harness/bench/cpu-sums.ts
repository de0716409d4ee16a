/** Per-account CPU by process group (`cpu.ts`), summed: the whole, and what a deployment runs. */

/** What stands in for the tenant (its API, its database work, S3/SQS): a deployment does not run these. */
export const STAND_IN_GROUPS = ['sandbox', 'sandbox-postgres', 's3sqs'] as const;

export const sumOf = (c: Record<string, number>, keep: (group: string) => boolean) => Object.entries(c).reduce((a, [g, n]) => (keep(g) ? a + n : a), 0);

const isStandIn = (group: string) => (STAND_IN_GROUPS as readonly string[]).includes(group);

/** Every group's CPU together; undefined when the pass measured none. */
export const cpuOf = (c: Record<string, number> | undefined) => (c && Object.keys(c).length > 0 ? sumOf(c, () => true) : undefined);

/** Every group's CPU less the tenant's stand-ins: what a deployment runs; undefined when the pass measured none. */
export const cpuLessStandIns = (c: Record<string, number> | undefined) => {
  const total = cpuOf(c);
  return total === undefined ? undefined : total - sumOf(c!, isStandIn);
};
