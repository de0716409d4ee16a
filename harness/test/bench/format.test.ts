import { describe, expect, it } from 'vitest';
import { fmt, fmtMs, leastCpuPerAccount, renderReport, renderTable, resultRows, stepsPrice } from '../../bench/format';
import { benchResultsSchema, type BenchResults, type PipelineRun } from '../../bench/results';
import { roundFigures, roundOrder, summarizeRounds } from '../../bench/rounds';

const run = (over: Partial<PipelineRun> = {}): PipelineRun => ({
  workers: 1,
  accounts: 2000,
  concurrency: 50,
  completed: 2000,
  notCompleted: 0,
  wallSeconds: 80,
  accountsPerSecond: 25,
  latency: { p50Ms: 1840, p95Ms: 3210, maxMs: 5400 },
  loadAvg1: 3.2,
  historyEventsPerAccount: 41.5,
  workerPeakRssMb: 412,
  temporalPeakRssMb: 230,
  failedByCode: {},
  outcomeSources: { event: 1990, poll: 10 },
  eventsByMatchStatus: { matched: 1990, late: 10 },
  eventsUnidentified: 0,
  ...over,
});

/** A floor-shaped pass (the floor, the ceiling, the kept ceiling): `over` sets what a test reads. */
const floorPass = (over: Partial<NonNullable<BenchResults['ceiling']>> = {}): NonNullable<BenchResults['ceiling']> => ({
  accounts: 2000,
  concurrency: 50,
  completed: 2000,
  notCompleted: 0,
  wallSeconds: 62.5,
  accountsPerSecond: 32,
  latency: { p50Ms: 1200 },
  loadAvg1: 2,
  ...over,
});

/** A floor-shaped pass of 1,800 accounts at concurrency 100, its wall clock from its rate. */
const pass = (accountsPerSecond: number, cpuMsPerAccount: Record<string, number>, historyEventsPerAccount?: number) =>
  floorPass({
    accounts: 1800,
    concurrency: 100,
    completed: 1800,
    wallSeconds: 1800 / accountsPerSecond,
    accountsPerSecond,
    cpuMsPerAccount,
    historyEventsPerAccount,
  });

/** The `n` rows after row `at`, each as its figure (unindented) and value: what a reader of the table sees. */
const figuresAfter = (rows: ReturnType<typeof resultRows>, at: number, n: number) => rows.slice(at + 1, at + 1 + n).map((r) => [r.figure.trim(), r.value]);

const results = (over: Partial<BenchResults> = {}): BenchResults =>
  benchResultsSchema.parse({
    startedAt: '2025-06-01T10:00:00.000Z',
    finishedAt: '2025-06-01T10:12:00.000Z',
    command: 'npm run bench',
    mode: 'default',
    eventWaitSeconds: 30,
    eventsRoute: 'sqs',
    machine: { cpuModel: 'AMD EPYC', cores: 2, memoryGb: 23.5, platform: 'linux-x64', kernel: '6.1' },
    versions: { node: 'v20.20.2', temporalCli: '1.5.1 (Server 1.29.1, UI 2.42.1)', temporalio: '1.24.0' },
    load: { atStart: [1.5, 1.25, 1], atEnd: [2, 1.5, 1.25] },
    endToEnd: run(),
    floor: {
      accounts: 2000,
      concurrency: 50,
      completed: 2000,
      notCompleted: 0,
      wallSeconds: 20,
      accountsPerSecond: 100,
      latency: { p50Ms: 420 },
      loadAvg1: 2,
      historyEventsPerAccount: 11,
    },
    plainScript: {
      accounts: 2000,
      concurrency: 50,
      completed: 2000,
      notCompleted: 0,
      wallSeconds: 40,
      accountsPerSecond: 50,
      latency: { p50Ms: 800, p95Ms: 1500 },
      loadAvg1: 2,
      peakRssMb: 180,
      failedByCode: {},
    },
    ratios: { pipelineOverFloor: 0.25, pipelineOverScript: 0.5 },
    validation: { seconds: 3, payloadsPerSecondPerCore: { runs: [1200, 1500, 1400], median: 1400 } },
    sandbox: { requestsPerRun: 2000, concurrency: 32, requestsPerSecond: { runs: [600, 650, 640], median: 640 }, p50Ms: 45, p95Ms: 120, failed: 0 },
    scaling: [run(), run({ workers: 2, accountsPerSecond: 40, workerPeakRssMb: 800 })],
    skipped: ['memory growth (opt-in: --memory [accounts])'],
    notes: [],
    ok: true,
    ...over,
  });

describe('number formatting', () => {
  it('groups thousands, fixes decimals and shows a dash for what was not measured', () => {
    expect(fmt(12345.678, 1)).toBe('12,345.7');
    expect(fmt(3)).toBe('3');
    expect(fmt(undefined)).toBe('—');
    expect(fmt(Number.NaN)).toBe('—');
    expect(fmtMs(850)).toBe('850 ms');
    expect(fmtMs(1840)).toBe('1.84 s');
    expect(fmtMs(undefined)).toBe('—');
  });
});

describe('renderTable', () => {
  it('pads figures left, right-aligns values, and leaves no trailing spaces', () => {
    const out = renderTable([
      { figure: 'a', value: '1 acc/s', note: 'n' },
      { figure: 'longer figure', value: '12.5 acc/s' },
    ]).split('\n');
    expect(out[0]).toBe('Figure              Value  Note');
    expect(out[1]).toBe('-------------  ----------  ----');
    expect(out[2]).toBe('a                 1 acc/s  n');
    expect(out[3]).toBe('longer figure  12.5 acc/s');
  });
});

describe('resultRows', () => {
  const byFigure = (r: BenchResults) => new Map(resultRows(r).map((row) => [row.figure.trim(), row]));

  it('reports every measured figure with its unit', () => {
    const rows = byFigure(results());
    expect(rows.get('End-to-end pipeline (1 worker, best concurrency)')?.value).toBe('25.00 acc/s');
    expect(rows.get('End-to-end pipeline (1 worker, best concurrency)')?.note).toContain('2,000/2,000 completed in 80.0 s');
    expect(rows.get('account latency p50 / p95')?.value).toBe('1.84 s / 3.21 s');
    expect(rows.get('history events per account')?.value).toBe('41.5');
    expect(rows.get('worker peak RSS')?.value).toBe('412 MB');
    expect(rows.get('Temporal server peak RSS')?.value).toBe('230 MB');
    expect(rows.get('outcomes by source')?.value).toBe('event 1,990, poll 10');
    expect(rows.get('pipeline / floor')?.value).toBe('0.25');
    expect(rows.get('pipeline / script')?.value).toBe('0.50');
    expect(rows.get('Validation (validateAccount, one core)')?.value).toBe('1,400 payloads/s');
    expect(rows.get('Sandbox schedule requests')?.value).toBe('640 req/s');
    expect(rows.get('Scaling: 2 worker processes, fresh stack 1')?.note).toMatch(/^×1\.60 of 1 worker/);
  });

  it('shows Postgres calls per account (round trips, nested, the costliest) and worker RSS per account in flight', () => {
    const postgres = {
      callsPerAccount: { pipeline: 23.92, sandbox: 10.65, either: 6.42 },
      nestedCallsPerAccount: 23.16,
      execMsPerAccount: 5.5,
      walBytesPerAccount: 9318,
      walFpiPerAccount: 0.4,
      autovacuums: 1,
      checkpoints: 0,
      top: [
        {
          query: 'select migrate.free_platform_permit($1)',
          owner: 'pipeline' as const,
          nested: false,
          callsPerAccount: 1.01,
          msPerAccount: 0.8,
          rowsPerAccount: 1,
        },
      ],
    };
    const out = resultRows(results({ endToEnd: run({ postgres, concurrency: 100, workerPeakRssMb: 764 }) }));
    const rows = new Map(out.map((row) => [row.figure.trim(), row]));
    expect(rows.get('Postgres calls per account')).toMatchObject({
      value: '23.92',
      note: expect.stringMatching(/\+ 23\.16 nested.*sandbox 10\.65.*begin\/commit \(either\) 6\.42.*1 autovacuum/),
    });
    expect(rows.get('Postgres WAL per account')).toMatchObject({ value: '9.1 kB', note: expect.stringContaining('0.40 full-page images an account') });
    expect(rows.get('pipeline')).toMatchObject({ value: '1.01 × 0.800 ms', note: 'select migrate.free_platform_permit($1)' });
    expect(rows.get('worker peak RSS')?.note).toContain('7.64 MB per account in flight');
  });

  it("reads events and actions per account from the run's full history cost, run share included", () => {
    const cost = {
      accounts: 2000,
      accountEventsPerAccount: 17,
      runEventsPerAccount: 0.42,
      eventsPerAccount: 17.42,
      actionsPerAccount: 6.1,
      actionsByKind: { workflowStarts: 1, activityAttempts: 2, localActivityTasks: 2.1, timers: 1, signals: 0, upserts: 0, updates: 0 },
      runSegments: 1,
    };
    const rows = byFigure(results({ endToEnd: run({ cost }) }));
    expect(rows.get('history events per account')).toMatchObject({ value: '17.4', note: expect.stringContaining('0.42 its share of the run') });
    expect(rows.get('Temporal Cloud actions per account')).toMatchObject({
      value: '6.10',
      note: 'workflowStarts 1.00, activityAttempts 2.00, localActivityTasks 2.10, timers 1.00',
    });
  });

  it('shows both sweeps and the 2-worker spread over fresh stacks', () => {
    const floor = (c: number, rate: number) => ({
      accounts: 2000,
      concurrency: c,
      completed: 2000,
      notCompleted: 0,
      wallSeconds: 20,
      accountsPerSecond: rate,
      latency: {},
      loadAvg1: 2,
    });
    const rows = byFigure(
      results({
        pipelineSweep: [run({ concurrency: 50, accountsPerSecond: 20 }), run({ concurrency: 100, accountsPerSecond: 25 })],
        floorSweep: [floor(50, 80), floor(100, 100)],
        scaling: [run(), run({ workers: 2, accountsPerSecond: 30 }), run({ workers: 2, accountsPerSecond: 40 }), run({ workers: 2, accountsPerSecond: 35 })],
      }),
    );
    expect(rows.get('pipeline sweep')?.value).toBe('50: 20.0 · 100: 25.0');
    expect(rows.get('floor sweep')?.value).toBe('50: 80.0 · 100: 100.0');
    expect(rows.get('2 workers: median (spread)')).toMatchObject({
      value: '35.00 acc/s',
      note: 'min 30.00 – max 40.00 over 3 fresh stacks; ×1.40 of 1 worker',
    });
  });

  it('says when platform events arrived without an account number (they cannot be routed)', () => {
    const rows = byFigure(results({ endToEnd: run({ outcomeSources: { poll: 2000 }, eventsByMatchStatus: {}, eventsUnidentified: 2000 }) }));
    expect(rows.get('outcomes by source')).toMatchObject({ value: 'poll 2,000', note: 'platform events by match: none; 2,000 without an account number' });
  });

  it('lists accounts that did not complete, with their codes', () => {
    const rows = byFigure(results({ endToEnd: run({ completed: 1997, notCompleted: 3, failedByCode: { outcome_timeout: 2, no_ledger_row: 1 } }), ok: false }));
    expect(rows.get('NOT completed')).toEqual({ figure: '  NOT completed', value: '3', note: 'outcome_timeout×2, no_ledger_row×1' });
  });

  it('shows the ceiling beside the floor and the script, with the ratios that bound the pipeline', () => {
    const ceiling = floorPass({
      completed: 1999,
      notCompleted: 1,
      cpuMsPerAccount: { bench: 30, temporal: 25, sandbox: 10, 'sandbox-postgres': 4, s3sqs: 1 },
    });
    const base = results({
      ceiling,
      ratios: {
        pipelineOverFloor: 0.25,
        pipelineOverScript: 0.5,
        pipelineOverCeiling: 0.78,
        ceilingOverFloor: 0.32,
        ceilingOverScript: 0.64,
        steady: { pipelineOverCeiling: 0.7 },
      },
    });
    const measured: BenchResults = {
      ...base,
      endToEnd: { ...base.endToEnd, cpuMsPerAccount: { worker: 34, temporal: 28, postgres: 8, sandbox: 10, 'sandbox-postgres': 4, s3sqs: 1 } },
      // Beside each pass the other processes idle: the floor's sandbox, the script's Temporal, bench and worker are not its work.
      floor: { ...base.floor!, cpuMsPerAccount: { temporal: 20, bench: 8, sandbox: 0.5 } },
      plainScript: { ...base.plainScript!, cpuMsPerAccount: { script: 10, sandbox: 6, 'sandbox-postgres': 2, temporal: 1, bench: 0.5, worker: 0.2 } },
    };
    expect(leastCpuPerAccount(measured)).toBe(46);
    expect(leastCpuPerAccount({ ...measured, floor: undefined })).toBeUndefined();
    const rows = resultRows(measured);
    const at = rows.findIndex((r) => r.figure.startsWith('Ceiling'));
    expect(rows[at]).toMatchObject({ value: '32.00 acc/s', note: expect.stringContaining('1,999/2,000 in 62.5 s at concurrency 50') });
    expect(figuresAfter(rows, at, 8)).toEqual([
      ['CPU per account', '70 ms'],
      // What a deployment runs: the tenant's stand-ins (its API, its database work, S3/SQS) taken off.
      ['without the stand-ins', '55 ms'],
      ['NOT completed', '1'],
      ['pipeline / ceiling', '0.78'],
      ['ceiling / floor', '0.32'],
      ['ceiling / script', '0.64'],
      // The floor's server and worker (20 + 8) + the script's work and stand-ins (10 + 6 + 2).
      ['floor + script, CPU per account', '46 ms'],
      // 85 in the pipeline's pass, 70 in the ceiling's.
      ['pipeline − ceiling, CPU per account', '15 ms'],
    ]);
    // The steady rates' ratio beside the wall clock's, when both passes measured one; nothing when not.
    expect(rows[at + 4].note).toContain('steady rates (the window full, no ramp, no drain: stats.ts steadyRate): 0.70');
    expect(rows[at + 5].note).not.toContain('steady');
  });

  it('shows the kept ceiling after the ceiling, with what it leaves of the ceiling and the pipeline against it', () => {
    const rows = resultRows(
      results({
        ceiling: pass(36, { bench: 30, temporal: 25 }),
        ceilingKept: pass(32, { bench: 34, temporal: 25, postgres: 1, sandbox: 6 }),
        ratios: { keptOverCeiling: 0.89, pipelineOverKept: 0.81, steady: { keptOverCeiling: 0.87 } },
      }),
    );
    const at = rows.findIndex((r) => r.figure.startsWith('Ceiling kept'));
    expect(at).toBeGreaterThan(rows.findIndex((r) => r.figure.startsWith('Ceiling (')));
    expect(rows[at]).toMatchObject({ value: '32.00 acc/s', note: expect.stringContaining('1,800/1,800 in 56.3 s at concurrency 100') });
    expect(figuresAfter(rows, at, 4)).toEqual([
      ['CPU per account', '66 ms'],
      ['without the stand-ins', '60 ms'],
      ['kept / ceiling', '0.89'],
      ['pipeline / kept', '0.81'],
    ]);
    expect(rows[at + 3].note).toContain('steady rates (the window full, no ramp, no drain: stats.ts steadyRate): 0.87');
    expect(rows[at + 4].note).not.toContain('steady');
    // No pass, no rows.
    expect(resultRows(results()).some((r) => r.figure.startsWith('Ceiling kept'))).toBe(false);
  });

  it("prices the pipeline's two steps against the floor, and what kept + that price leaves of the ceiling", () => {
    const r = results({
      // The floor's server and worker 20 + 8 = 28; the steps' 26 + 12 = 38 (their Postgres and sandbox are not theirs).
      floor: pass(100, { temporal: 20, bench: 8, postgres: 1 }, 11),
      floorSteps: pass(75, { temporal: 26, bench: 12, postgres: 3, sandbox: 1 }, 13),
      ceiling: pass(36, { bench: 30, temporal: 50 }),
      ceilingKept: pass(32, { bench: 34, temporal: 50, postgres: 1, sandbox: 5 }),
      ratios: { stepsOverFloor: 0.75, steady: { stepsOverFloor: 0.74 } },
    });
    expect(stepsPrice(r)).toEqual({ price: 10, least: 100, ceilingOverLeast: 0.8 });
    const rows = resultRows(r);
    const at = rows.findIndex((x) => x.figure.startsWith("Floor in the pipeline's shape"));
    expect(at).toBeGreaterThan(rows.findIndex((x) => x.figure.startsWith('Ceiling kept')));
    expect(rows[at]).toMatchObject({ value: '75.00 acc/s', note: expect.stringContaining('1,800/1,800 in 24.0 s at concurrency 100, 13.0 events/wf') });
    expect(figuresAfter(rows, at, 6)).toEqual([
      ['CPU per account', '42 ms'],
      ['without the stand-ins', '41 ms'],
      ['steps / floor', '0.75'],
      ["the steps' price, CPU per account", '10.0 ms'],
      ["kept + the steps' price, CPU per account", '100 ms'],
      ['ceiling ÷ that', '0.80'],
    ]);
    expect(rows[at + 3].note).toContain('steady rates (the window full, no ramp, no drain: stats.ts steadyRate): 0.74');
    // Without the kept ceiling, the price alone; without the pass, nothing.
    const alone = resultRows(results({ floor: r.floor, floorSteps: r.floorSteps, ceiling: r.ceiling }));
    expect(alone.some((x) => x.figure.includes("the steps' price"))).toBe(true);
    expect(alone.some((x) => x.figure.includes('kept + the steps'))).toBe(false);
    expect(stepsPrice(results({ floor: r.floor }))).toBeUndefined();
    expect(resultRows(results()).some((x) => x.figure.startsWith("Floor in the pipeline's shape"))).toBe(false);
  });

  it('shows each round on a line, then the medians and spread a goal is judged on', () => {
    const pass = (accountsPerSecond: number, steadyAccountsPerSecond: number, cpuMsPerAccount: Record<string, number>) => ({
      ...run(),
      accounts: 600,
      accountsPerSecond,
      steadyAccountsPerSecond,
      cpuMsPerAccount,
    });
    const rounds = summarizeRounds(
      [
        { pipeline: pass(18, 24, { worker: 60, sandbox: 10 }), floor: pass(36, 48, {}), ceiling: pass(20, 30, { bench: 50 }) },
        { pipeline: pass(10, 12, { worker: 90, postgres: 8 }), floor: pass(40, 48, {}), ceiling: pass(20, 30, { bench: 50 }) },
      ].map((done, i) => ({ order: roundOrder(i), ...done, figures: roundFigures(done) })),
    );
    const rows = resultRows(results({ rounds }));
    const at = rows.findIndex((r) => r.figure.startsWith('Rounds (2'));
    expect(figuresAfter(rows, at, 3)).toEqual([
      ['round 1', '0.90 · 0.50 (0.80 · 0.50) · 70 (60) · — · 20'],
      ['round 2', '0.50 · 0.25 (0.40 · 0.25) · 98 (98) · 8.0 · 48'],
      ['median', '0.70 · 0.38 (0.60 · 0.38) · 84 (79) · 8.0 · 34'],
    ]);
    expect(rows[at + 2].note).toContain('ceiling → floor → pipeline: 10.00 · 40.00 · 20.00 acc/s (steady 12.00 · 48.00 · 30.00)');
    expect(rows[at + 3].note).toBe('lowest 0.50 · 0.25 (0.40 · 0.25) · 70 (60) · 8.0 · 20; highest 0.90 · 0.50 (0.80 · 0.50) · 98 (98) · 8.0 · 48');
  });

  it('leaves out sections that were not run', () => {
    const rows = byFigure(results({ floor: undefined, plainScript: undefined, scaling: undefined, ratios: {} }));
    expect(rows.has('pipeline / floor')).toBe(false);
    expect(rows.has('Plain script (no Temporal)')).toBe(false);
    expect([...rows.keys()].some((k) => k.startsWith('Ceiling'))).toBe(false);
    expect([...rows.keys()].some((k) => k.startsWith('Scaling'))).toBe(false);
  });

  it('shows memory growth from the first to the last sample', () => {
    const rows = byFigure(
      results({
        memory: {
          accounts: 10_000,
          samples: [
            { finished: 1000, workerRssMb: 400 },
            { finished: 10_000, workerRssMb: 430.5 },
          ],
          rssAtFirstMb: 400,
          rssAtLastMb: 430.5,
          growthMb: 30.5,
          run: run({ accounts: 10_000, completed: 10_000 }),
        },
      }),
    );
    const m = rows.get('Memory growth (10,000 accounts, 1 run)');
    expect(m?.value).toBe('+31 MB');
    expect(m?.note).toContain('400 MB after 1,000 → 431 MB after 10,000');
  });
});

describe('renderReport', () => {
  it('puts the machine, versions and load above the table and the verdict below', () => {
    const text = renderReport(results()).split('\n');
    expect(text[0]).toBe('kraken-migrate bench (default) — 2025-06-01T10:00:00.000Z');
    expect(text[2]).toBe('machine:  AMD EPYC, 2 cores, 23.5 GB, linux-x64 6.1');
    expect(text[3]).toBe('versions: node v20.20.2; Temporal CLI 1.5.1 (Server 1.29.1, UI 2.42.1); @temporalio/* 1.24.0');
    expect(text[4]).toBe('settings: sandbox latency 0, processing delay 0, events on (route: SQS), OUTCOME_EVENT_WAIT_SECONDS=30');
    expect(text[5]).toContain('1.50 / 1.25 / 1.00 at start');
    expect(text.at(-1)).toBe('OK: every account of every pass completed');
    expect(
      renderReport(results({ ok: false }))
        .split('\n')
        .at(-1),
    ).toBe('NOT OK: some accounts did not complete');
  });

  it('results survive a JSON round trip through the schema unchanged', () => {
    const r = results();
    expect(benchResultsSchema.parse(JSON.parse(JSON.stringify(r)))).toEqual(r);
  });
});
