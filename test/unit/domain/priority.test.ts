import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIORITY_KEY, REQUESTED_PRIORITY_KEY, RERUN_PRIORITY_KEY, runPriority } from '../../../domain/priority';

describe("a run's priority and fairness", () => {
  it('reruns first, then accounts the operator named, then the bulk (a lower priorityKey goes first)', () => {
    expect(runPriority('OCTO', { kind: 'failed_of_run' }).priorityKey).toBe(1);
    expect(runPriority('OCTO', { kind: 'list' }).priorityKey).toBe(2);
    expect(runPriority('OCTO', { kind: 'all' }).priorityKey).toBe(3);
    expect([RERUN_PRIORITY_KEY, REQUESTED_PRIORITY_KEY, DEFAULT_PRIORITY_KEY]).toEqual([1, 2, 3]);
  });

  it('the supplier is the fairness key; the weight is the run’s, 1 when not given', () => {
    expect(runPriority('OCTO', { kind: 'all' }, 3)).toEqual({ priorityKey: 3, fairnessKey: 'OCTO', fairnessWeight: 3 });
    expect(runPriority('EDF', { kind: 'failed_of_run' })).toEqual({ priorityKey: 1, fairnessKey: 'EDF', fairnessWeight: 1 });
  });
});
