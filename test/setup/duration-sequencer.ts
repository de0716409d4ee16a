import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import durations from './e2e-durations.json';

const seconds: Readonly<Record<string, number>> = durations.seconds;

/**
 * Longest end-to-end files first, by the durations of a CI run (e2e-durations.json): a fresh clone
 * has no vitest cache, and its default order (largest file first) started a three-minute file last,
 * so one stack ran alone at the end while the others were idle. A file not listed (a new one) goes
 * first, as vitest puts files it has never timed; other projects keep vitest's own order.
 */
export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const known = (f: TestSpecification) => seconds[relative(this.ctx.config.root, f.moduleId)];
    const rank = (f: TestSpecification) => (f.project.name !== 'e2e' ? 0 : (known(f) ?? Number.POSITIVE_INFINITY));
    // Array.prototype.sort is stable: equal ranks (every non-e2e file) keep vitest's order.
    return [...base].sort((a, b) => rank(b) - rank(a));
  }
}
