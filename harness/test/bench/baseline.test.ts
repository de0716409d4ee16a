import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASELINE_FILE, compareToBaseline, readBaseline, type Baseline } from '../../bench/baseline';
import { baselineLines } from '../../bench/format';
import type { PipelineRun } from '../../bench/results';

const f = (value: number, tolerance: number) => ({ value, tolerance });
const baseline: Baseline = {
  measured: 'test',
  pass: { accounts: 100, concurrency: 100 },
  counts: {
    postgresCallsPerAccount: f(20, 0.02),
    postgresNestedCallsPerAccount: f(30, 0.02),
    historyEventsPerAccount: f(19, 0.02),
    actionsPerAccount: f(6, 0.02),
  },
  load: { cpuMsPerAccount: f(100, 0.1), postgresCpuMsPerAccount: f(15, 0.1), workerCpuMsPerAccount: f(40, 0.1), workerRssMbPerAccountInFlight: f(8, 0.1) },
};

const pass = (over: Partial<PipelineRun> = {}) =>
  ({
    accounts: 100,
    concurrency: 100,
    workerPeakRssMb: 700,
    cpuMsPerAccount: { worker: 40, postgres: 16, temporal: 30 },
    postgres: {
      callsPerAccount: { pipeline: 20.3, sandbox: 10, either: 5 },
      nestedCallsPerAccount: 31,
      execMsPerAccount: 5,
      autovacuums: 0,
      checkpoints: 0,
      top: [],
    },
    cost: {
      accounts: 100,
      accountEventsPerAccount: 18,
      runEventsPerAccount: 0.5,
      eventsPerAccount: 18.5,
      actionsPerAccount: 6.2,
      actionsByKind: {},
      runSegments: 1,
    },
    ...over,
  }) as PipelineRun;

describe('the bench against its baseline', () => {
  it('flags a figure above the baseline by more than its tolerance, and no other', () => {
    const checks = compareToBaseline({ endToEnd: pass() }, baseline);
    const by = Object.fromEntries(checks.map((c) => [c.figure, c]));
    expect(by.postgresCallsPerAccount).toMatchObject({ now: 20.3, baseline: 20, rose: false, loadDependent: false }); // within 2%
    expect(by.postgresNestedCallsPerAccount.rose).toBe(true); // 31 > 30.6
    expect(by.historyEventsPerAccount.rose).toBe(false);
    expect(by.actionsPerAccount.rose).toBe(true);
    expect(by.cpuMsPerAccount).toMatchObject({ now: 86, rose: false, loadDependent: true });
    expect(by.postgresCpuMsPerAccount.rose).toBe(false); // 16 ≤ 16.5
    expect(by.workerRssMbPerAccountInFlight).toMatchObject({ now: 7, rose: false });
    expect(compareToBaseline({ endToEnd: pass({ workerPeakRssMb: 900 }) }, baseline).find((c) => c.figure === 'workerRssMbPerAccountInFlight')?.rose).toBe(
      true,
    );
  });

  it("compares CPU and memory only for a pass of the baseline's size; counts for any pass", () => {
    for (const other of [pass({ accounts: 30, workerPeakRssMb: 5000 }), pass({ concurrency: 10, workerPeakRssMb: 5000 })]) {
      const checks = compareToBaseline({ endToEnd: other }, baseline);
      expect(checks.filter((c) => c.loadDependent)).toEqual([]);
      expect(checks.map((c) => c.figure)).toEqual(['postgresCallsPerAccount', 'postgresNestedCallsPerAccount', 'historyEventsPerAccount', 'actionsPerAccount']);
    }
  });

  it('leaves out what the pass did not measure', () => {
    const checks = compareToBaseline({ endToEnd: pass({ postgres: undefined, cost: undefined }) }, baseline);
    expect(checks.map((c) => c.figure)).not.toContain('postgresCallsPerAccount');
    expect(checks.map((c) => c.figure)).not.toContain('historyEventsPerAccount');
  });

  it('says a count that rose is a count, and a CPU figure that rose needs a quiet machine', () => {
    const lines = baselineLines(compareToBaseline({ endToEnd: pass({ cpuMsPerAccount: { worker: 60 } }) }, baseline), 7.5);
    expect(lines.filter((l) => l.startsWith('ROSE'))).toEqual([
      expect.stringMatching(/^ROSE.*postgresNestedCallsPerAccount.*a count/),
      expect.stringMatching(/^ROSE.*actionsPerAccount.*a count/),
      expect.stringMatching(/^ROSE.*workerCpuMsPerAccount.*quiet machine.*load 7\.5/),
    ]);
    expect(baselineLines(undefined, 1)).toEqual([expect.stringContaining('missing')]);
  });

  it('the committed baseline parses', () => {
    expect(readBaseline(path.resolve(__dirname, '../../..', BASELINE_FILE))).toBeDefined();
  });
});
