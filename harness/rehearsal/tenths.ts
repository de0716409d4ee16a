/**
 * The rehearsal's table, one row per tenth of the run's accounts in the order they finished: how
 * fast, how long an account took, and what it cost. Pure: the samples and the ledger's finish
 * times go in, the rows come out (rehearsal/run.ts measures; harness/test/rehearsal/tenths.test.ts
 * pins the arithmetic).
 */

/** One reading of the stack, every few seconds. CPU is cumulative milliseconds by process group. */
export interface Sample {
  atMs: number;
  /** RSS of the worker that is never killed (MB): the run's memory curve. */
  steadyWorkerRssMb: number;
  /** RSS of every live worker process (MB). */
  workersRssMb: number;
  cpuMs: Record<string, number>;
  /** The machine's 1-minute load average (what else was running). */
  load1?: number;
}

/** One account of the run: when it finished (epoch ms) and how long it took from start to outcome. */
export interface Finish {
  atMs: number;
  latencyMs: number;
}

export interface TenthRow {
  tenth: number;
  accounts: number;
  seconds: number;
  accountsPerSecond: number;
  p50Seconds: number;
  p95Seconds: number;
  steadyWorkerRssMb: number | null;
  workersRssMb: number | null;
  /** Mean 1-minute load average over the tenth's samples. */
  load1: number | null;
  /** CPU per account (ms) in this tenth, by process group: worker, temporal, postgres, sandbox… */
  cpuMsPerAccount: Record<string, number>;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** Nearest-rank percentile (an observed value, never an interpolation). */
export function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

/** A cumulative CPU series read at any moment: linear between the two samples around it. */
export function cpuAt(samples: readonly Sample[], atMs: number, group: string): number {
  if (samples.length === 0) return 0;
  const v = (s: Sample) => s.cpuMs[group] ?? 0;
  if (atMs <= samples[0].atMs) return v(samples[0]);
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    if (atMs <= b.atMs) return b.atMs === a.atMs ? v(b) : v(a) + ((v(b) - v(a)) * (atMs - a.atMs)) / (b.atMs - a.atMs);
  }
  return v(samples[samples.length - 1]);
}

/** The last sample taken at or before `atMs` (the first one if none is). */
function sampleAt(samples: readonly Sample[], atMs: number): Sample | undefined {
  let found: Sample | undefined = samples[0];
  for (const s of samples) {
    if (s.atMs > atMs) break;
    found = s;
  }
  return found;
}

/**
 * Splits the finished accounts into ten equal parts by finish time. A tenth's time runs from the
 * previous tenth's last finish (the run's start for the first) to its own last finish.
 */
export function tenthRows(startMs: number, finishes: readonly Finish[], samples: readonly Sample[]): TenthRow[] {
  const sorted = [...finishes].sort((a, b) => a.atMs - b.atMs);
  const n = sorted.length;
  const groups = [...new Set(samples.flatMap((s) => Object.keys(s.cpuMs)))];
  const rows: TenthRow[] = [];
  let fromMs = startMs;
  for (let k = 0; k < 10; k++) {
    const part = sorted.slice(Math.floor((k * n) / 10), Math.floor(((k + 1) * n) / 10));
    if (part.length === 0) continue;
    const toMs = part[part.length - 1].atMs;
    const seconds = Math.max(0.001, (toMs - fromMs) / 1000);
    const latencies = part.map((f) => f.latencyMs).sort((a, b) => a - b);
    const at = sampleAt(samples, toMs);
    const loads = samples.filter((x) => x.atMs > fromMs && x.atMs <= toMs && x.load1 !== undefined).map((x) => x.load1!);
    const cpu: Record<string, number> = {};
    for (const g of groups) cpu[g] = round((cpuAt(samples, toMs, g) - cpuAt(samples, fromMs, g)) / part.length, 1);
    rows.push({
      tenth: k + 1,
      accounts: part.length,
      seconds: round(seconds, 1),
      accountsPerSecond: round(part.length / seconds),
      p50Seconds: round(nearestRank(latencies, 50) / 1000, 1),
      p95Seconds: round(nearestRank(latencies, 95) / 1000, 1),
      steadyWorkerRssMb: at ? Math.round(at.steadyWorkerRssMb) : null,
      workersRssMb: at ? Math.round(at.workersRssMb) : null,
      load1: loads.length ? round(loads.reduce((a, b) => a + b, 0) / loads.length, 1) : null,
      cpuMsPerAccount: cpu,
    });
    fromMs = toMs;
  }
  return rows;
}

export interface Goals {
  /** Last tenth's accounts/s over the first's (goal ≥ 0.9). */
  lastOverFirst: number | null;
  /** Growth of the steady worker's RSS from the second tenth to the last (goal < 10 %). */
  rssGrowthPercent: number | null;
}

export function goals(rows: readonly TenthRow[]): Goals {
  const first = rows[0];
  const last = rows[rows.length - 1];
  const second = rows[1];
  return {
    lastOverFirst: first && last && rows.length > 1 ? round(last.accountsPerSecond / first.accountsPerSecond) : null,
    rssGrowthPercent:
      second?.steadyWorkerRssMb && last?.steadyWorkerRssMb && rows.length > 2
        ? round(((last.steadyWorkerRssMb - second.steadyWorkerRssMb) / second.steadyWorkerRssMb) * 100, 1)
        : null,
  };
}
