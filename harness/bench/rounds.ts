import { cpuLessStandIns, cpuOf } from './cpu-sums';
import type { FloorRun, PipelineRun, Round, RoundFigures, Rounds } from './results';
import { median, ratio, round } from './stats';

/**
 * `--rounds`: the host's speed drifts by a third between passes minutes apart (docs/measurements.md,
 * "Benchmarks"), so one run's pipeline / ceiling says as much about the minute as about the code.
 * Each round runs the three passes back to back, the order reversed every other round so that a
 * drift favours neither side of a ratio over the rounds, and the figures are judged on their medians.
 */
export type RoundPass = Round['order'][number];

export function roundOrder(i: number): RoundPass[] {
  return i % 2 === 0 ? ['pipeline', 'floor', 'ceiling'] : ['ceiling', 'floor', 'pipeline'];
}

const rounded = (n: number | undefined, digits: number) => (n === undefined ? undefined : round(n, digits));

/** One round's ratios and the pipeline's CPU an account, beside the ceiling's in the same round. */
export function roundFigures(r: { pipeline: PipelineRun; floor: FloorRun; ceiling: FloorRun }): RoundFigures {
  const c = r.pipeline.cpuMsPerAccount;
  const cpu = cpuOf(c);
  const ceilingCpu = cpuOf(r.ceiling.cpuMsPerAccount);
  return {
    pipelineOverCeiling: rounded(ratio(r.pipeline.accountsPerSecond, r.ceiling.accountsPerSecond), 2),
    pipelineOverFloor: rounded(ratio(r.pipeline.accountsPerSecond, r.floor.accountsPerSecond), 2),
    steadyPipelineOverCeiling: rounded(ratio(r.pipeline.steadyAccountsPerSecond, r.ceiling.steadyAccountsPerSecond), 2),
    steadyPipelineOverFloor: rounded(ratio(r.pipeline.steadyAccountsPerSecond, r.floor.steadyAccountsPerSecond), 2),
    cpuMsPerAccount: rounded(cpu, 1),
    cpuLessStandInsMs: rounded(cpuLessStandIns(c), 1),
    postgresCpuMs: c?.postgres,
    pipelineMinusCeilingCpuMs: cpu !== undefined && ceilingCpu !== undefined ? round(cpu - ceilingCpu, 1) : undefined,
  };
}

const FIGURES = [
  'pipelineOverCeiling',
  'pipelineOverFloor',
  'steadyPipelineOverCeiling',
  'steadyPipelineOverFloor',
  'cpuMsPerAccount',
  'cpuLessStandInsMs',
  'postgresCpuMs',
  'pipelineMinusCeilingCpuMs',
] as const;

/** Each figure's median, lowest and highest over the rounds that measured it. */
export function summarizeRounds(runs: Round[]): Rounds {
  const over = (pick: (values: number[]) => number | undefined): RoundFigures =>
    Object.fromEntries(
      FIGURES.map((f) => {
        const values = runs.map((r) => r.figures[f]).filter((v): v is number => v !== undefined);
        return [f, rounded(pick(values), 2)];
      }),
    );
  return {
    runs,
    median: over(median),
    min: over((v) => (v.length > 0 ? Math.min(...v) : undefined)),
    max: over((v) => (v.length > 0 ? Math.max(...v) : undefined)),
  };
}
