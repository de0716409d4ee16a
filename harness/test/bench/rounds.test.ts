import { describe, expect, it } from 'vitest';
import type { FloorRun, PipelineRun } from '../../bench/results';
import { roundFigures, roundOrder, summarizeRounds } from '../../bench/rounds';

const pass = { accounts: 600, concurrency: 100, completed: 600, notCompleted: 0, wallSeconds: 30, latency: {}, loadAvg1: 2 };
const pipeline = (accountsPerSecond: number, cpuMsPerAccount?: Record<string, number>): PipelineRun => ({
  ...pass,
  accountsPerSecond,
  cpuMsPerAccount,
  workers: 1,
  failedByCode: {},
  outcomeSources: { event: 600 },
  eventsByMatchStatus: { matched: 600 },
  eventsUnidentified: 0,
});
const floorPass = (accountsPerSecond: number, cpuMsPerAccount?: Record<string, number>): FloorRun => ({ ...pass, accountsPerSecond, cpuMsPerAccount });

const round = (p: number, f: number, c: number, cpu: Record<string, number>, ceilingCpu: Record<string, number>) => {
  const done = { pipeline: pipeline(p, cpu), floor: floorPass(f), ceiling: floorPass(c, ceilingCpu) };
  return { order: roundOrder(0), ...done, figures: roundFigures(done) };
};

describe('bench rounds', () => {
  it('reverses the order every other round, so a drift of the host favours neither side of a ratio', () => {
    expect([0, 1, 2, 3].map(roundOrder)).toEqual([
      ['pipeline', 'floor', 'ceiling'],
      ['ceiling', 'floor', 'pipeline'],
      ['pipeline', 'floor', 'ceiling'],
      ['ceiling', 'floor', 'pipeline'],
    ]);
  });

  it('sets the steady rates beside each other as well, when each pass measured one', () => {
    const done = {
      pipeline: { ...pipeline(18), steadyAccountsPerSecond: 24 },
      floor: { ...floorPass(36), steadyAccountsPerSecond: 60 },
      ceiling: { ...floorPass(20), steadyAccountsPerSecond: 30 },
    };
    expect(roundFigures(done)).toMatchObject({ pipelineOverCeiling: 0.9, steadyPipelineOverCeiling: 0.8, steadyPipelineOverFloor: 0.4 });
    expect(roundFigures({ ...done, ceiling: floorPass(20) }).steadyPipelineOverCeiling).toBeUndefined();
  });

  it("sets a round's pipeline beside its own floor and ceiling: the ratios, the CPU less the stand-ins, what it costs beyond the ceiling", () => {
    const done = {
      pipeline: pipeline(18, { worker: 40, temporal: 30, postgres: 9.5, events: 4, sandbox: 11, 'sandbox-postgres': 2.5, s3sqs: 3 }),
      floor: floorPass(36, { temporal: 30, bench: 20 }),
      ceiling: floorPass(20, { bench: 30, temporal: 28, sandbox: 8, postgres: 4 }),
    };
    expect(roundFigures(done)).toEqual({
      pipelineOverCeiling: 0.9,
      pipelineOverFloor: 0.5,
      cpuMsPerAccount: 100,
      cpuLessStandInsMs: 83.5,
      postgresCpuMs: 9.5,
      pipelineMinusCeilingCpuMs: 30,
    });
    // A pass that measured no CPU gives no CPU figure, never a zero.
    expect(roundFigures({ ...done, pipeline: pipeline(18) })).toMatchObject({
      cpuMsPerAccount: undefined,
      cpuLessStandInsMs: undefined,
      pipelineMinusCeilingCpuMs: undefined,
    });
  });

  it('judges each figure on its median over the rounds, with its lowest and highest', () => {
    const rounds = [
      round(18, 36, 20, { worker: 60 }, { bench: 50 }),
      round(10, 40, 20, { worker: 90 }, { bench: 50 }),
      round(19, 38, 19, { worker: 70 }, { bench: 62 }),
    ];
    const s = summarizeRounds(rounds);
    expect(s.runs).toBe(rounds);
    expect(s.median).toMatchObject({ pipelineOverCeiling: 0.9, pipelineOverFloor: 0.5, cpuMsPerAccount: 70, pipelineMinusCeilingCpuMs: 10 });
    expect(s.min).toMatchObject({ pipelineOverCeiling: 0.5, pipelineOverFloor: 0.25, cpuMsPerAccount: 60, pipelineMinusCeilingCpuMs: 8 });
    expect(s.max).toMatchObject({ pipelineOverCeiling: 1, pipelineOverFloor: 0.5, cpuMsPerAccount: 90, pipelineMinusCeilingCpuMs: 40 });
    // An even count takes the mean of the middle two.
    expect(summarizeRounds(rounds.slice(0, 2)).median.cpuMsPerAccount).toBe(75);
    expect(summarizeRounds([]).median.pipelineOverCeiling).toBeUndefined();
  });
});
