import { describe, expect, it } from 'vitest';
import { cpuAt, goals, nearestRank, tenthRows, type Finish, type Sample } from '../../rehearsal/tenths';
import { recovery } from '../../rehearsal/recovery';

const sample = (atMs: number, rss: number, worker: number): Sample => ({ atMs, steadyWorkerRssMb: rss, workersRssMb: rss * 2, cpuMs: { worker } });

describe('rehearsal tenths', () => {
  // 100 accounts finishing one a second from t = 1 s, each taking (i % 10 + 1) s.
  const finishes: Finish[] = Array.from({ length: 100 }, (_, i) => ({ atMs: (i + 1) * 1000, latencyMs: ((i % 10) + 1) * 1000 }));
  // Worker CPU grows 50 ms a second; RSS 100 MB, then 200 MB from t = 50 s.
  const samples: Sample[] = Array.from({ length: 11 }, (_, k) => sample(k * 10_000, k * 10_000 >= 50_000 ? 200 : 100, k * 500));

  it('splits the accounts into ten parts by finish time, each timed from the last finish before it', () => {
    const rows = tenthRows(0, [...finishes].reverse(), samples);
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.accounts)).toEqual(Array(10).fill(10));
    expect(rows[0].seconds).toBe(10);
    expect(rows[0].accountsPerSecond).toBe(1);
    expect(rows[9].accountsPerSecond).toBe(1);
    // Latencies 1..10 s in each tenth: nearest-rank p50 = 5 s, p95 = 10 s.
    expect(rows[3].p50Seconds).toBe(5);
    expect(rows[3].p95Seconds).toBe(10);
  });

  it('charges each tenth the CPU used between its bounds, per account', () => {
    const rows = tenthRows(0, finishes, samples);
    // 10 s × 50 ms/s over 10 accounts.
    expect(rows[4].cpuMsPerAccount.worker).toBe(50);
  });

  it('reads memory at the end of each tenth, and the goals from the rows', () => {
    const rows = tenthRows(0, finishes, samples);
    expect(rows[1].steadyWorkerRssMb).toBe(100);
    expect(rows[9].steadyWorkerRssMb).toBe(200);
    expect(rows[9].workersRssMb).toBe(400);
    expect(goals(rows)).toEqual({ lastOverFirst: 1, rssGrowthPercent: 100 });
  });

  it('a slower last tenth shows in the ratio', () => {
    const slow = finishes.map((f, i) => (i >= 90 ? { ...f, atMs: 90_000 + (i - 89) * 2000 } : f));
    expect(goals(tenthRows(0, slow, samples)).lastOverFirst).toBe(0.5);
  });

  it('interpolates cumulative CPU between samples and holds it past the last', () => {
    expect(cpuAt(samples, 15_000, 'worker')).toBe(750);
    expect(cpuAt(samples, 500_000, 'worker')).toBe(5000);
    expect(cpuAt(samples, -1, 'worker')).toBe(0);
  });

  it('nearest rank is an observed value', () => {
    expect(nearestRank([1, 2, 3, 4], 50)).toBe(2);
    expect(nearestRank([1, 2, 3, 4], 95)).toBe(4);
  });
});

describe('rehearsal recovery after an outage', () => {
  // 2 accounts/s, nothing during the outage (100-200 s), then 1/s for 60 s, then 2/s again.
  const f: Finish[] = [];
  for (let t = 0; t < 100_000; t += 500) f.push({ atMs: t + 500, latencyMs: 1 });
  for (let t = 200_000; t < 260_000; t += 1000) f.push({ atMs: t + 1000, latencyMs: 1 });
  for (let t = 260_000; t < 500_000; t += 500) f.push({ atMs: t + 500, latencyMs: 1 });

  it('says how long after the return a 30-second window ran at 80 % of the rate before', () => {
    const r = recovery(f, 100_000, 200_000);
    expect(r.beforePerSecond).toBe(1.67); // the two minutes before include 20 s of the run's start
    expect(r.backAfterSeconds).toBe(75);
    expect(r.afterPerSecond).toBe(1.5);
  });

  it('never, when it never came back', () => {
    // Only the 1/s stretch after the return, then nothing.
    expect(
      recovery(
        f.filter((x) => x.atMs <= 260_000),
        100_000,
        200_000,
      ).backAfterSeconds,
    ).toBeNull();
  });
});
