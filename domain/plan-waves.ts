/**
 * The order of a plan's waves (docs/plan.md): a wave starts once the waves it names in `after` are
 * done; a wave without `after` waits for the one before it in the file. Pure: the plan file checks
 * the names with it, the plan workflow asks it which waves may start.
 */

/** What each wave waits for, by index: its `after` names, or the previous wave when it has none. */
export function waveDependencies(waves: ReadonlyArray<{ name: string; after?: readonly string[] }>): number[][] {
  const index = new Map(waves.map((w, i) => [w.name, i]));
  return waves.map((w, i) => {
    if (w.after === undefined) return i === 0 ? [] : [i - 1];
    return w.after.map((a) => index.get(a)).filter((j): j is number => j !== undefined);
  });
}

/** Problems with the `after` names: unknown waves, a wave after itself, and cycles, each with its field. */
export function afterProblems(waves: ReadonlyArray<{ name: string; after?: readonly string[] }>): Array<{ path: Array<string | number>; message: string }> {
  const names = new Set(waves.map((w) => w.name));
  const out: Array<{ path: Array<string | number>; message: string }> = [];
  waves.forEach((w, i) =>
    (w.after ?? []).forEach((a, j) => {
      if (a === w.name) out.push({ path: ['waves', i, 'after', j], message: `a wave cannot wait for itself (${a})` });
      else if (!names.has(a)) out.push({ path: ['waves', i, 'after', j], message: `${a} is not a wave of this plan` });
    }),
  );
  if (out.length > 0) return out;
  const cycle = findCycle(waveDependencies(waves));
  if (cycle)
    out.push({
      path: ['waves', cycle[0], 'after'],
      message: `the waves wait for each other in a cycle: ${[...cycle, cycle[0]].map((i) => waves[i].name).join(' → ')}`,
    });
  return out;
}

/** One cycle of the dependency graph (wave indexes, each waiting for the next), or undefined. */
export function findCycle(deps: readonly number[][]): number[] | undefined {
  // Peel the waves whose dependencies are all peeled: what is left waits in a cycle, or on one.
  const left = new Set(deps.keys());
  for (let peeled = true; peeled;) {
    peeled = false;
    for (const i of left)
      if (deps[i].every((j) => !left.has(j))) {
        left.delete(i);
        peeled = true;
      }
  }
  if (left.size === 0) return undefined;
  // Each wave left waits for another left: walking from the first, a wave comes round again.
  const walk: number[] = [];
  for (let i = Math.min(...left); ; i = deps[i].find((j) => left.has(j))!) {
    const seen = walk.indexOf(i);
    if (seen >= 0) return walk.slice(seen);
    walk.push(i);
  }
}

/** Whether a wave may start: every wave it waits for is done (completed or skipped). */
export function waveReady(deps: readonly number[], done: (i: number) => boolean): boolean {
  return deps.every(done);
}
