import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/options';

describe('parseBenchArgs', () => {
  it('defaults to the full table: 2000 accounts, scaling on, memory off', () => {
    const o = parseBenchArgs([]);
    expect(o).toMatchObject({
      mode: 'default',
      accounts: 2000,
      concurrency: [50, 100, 200],
      floorConcurrency: [50, 100, 200, 400],
      scalingRepeats: 3,
      floor: true,
      script: true,
      scaling: true,
      readBack: true,
      memoryAccounts: 0,
      eventWaitSeconds: 30,
      out: 'harness/bench/results.json',
    });
  });

  it('--smoke is tiny and never scales, but explicit values still win', () => {
    expect(parseBenchArgs(['--smoke'])).toMatchObject({
      mode: 'smoke',
      accounts: 30,
      scaling: false,
      memoryAccounts: 0,
      validationSeconds: 1,
      sandboxRequests: 200,
    });
    expect(parseBenchArgs(['--smoke', '--accounts', '12'])).toMatchObject({ mode: 'smoke', accounts: 12 });
  });

  it('--concurrency and --floor-concurrency take sweeps', () => {
    expect(parseBenchArgs(['--concurrency', '100', '--floor-concurrency', '50,400'])).toMatchObject({ concurrency: [100], floorConcurrency: [50, 400] });
  });

  it('--memory alone means 10,000 accounts; with a value, that many', () => {
    expect(parseBenchArgs(['--memory']).memoryAccounts).toBe(10_000);
    expect(parseBenchArgs(['--memory', '3000']).memoryAccounts).toBe(3000);
  });

  it('--no-floor, --no-script and --no-scaling switch passes off', () => {
    expect(parseBenchArgs(['--no-floor', '--no-script', '--no-scaling'])).toMatchObject({ floor: false, script: false, scaling: false });
  });

  it("--no-read-back runs the pipeline without its read-back (the ceiling's work)", () => {
    expect(parseBenchArgs(['--no-read-back']).readBack).toBe(false);
  });

  it("--floor-steps adds the floor in the pipeline's shape (off by default), only with the floor", () => {
    expect(parseBenchArgs([]).floorSteps).toBe(false);
    expect(parseBenchArgs(['--floor-steps', '--no-script']).floorSteps).toBe(true);
    expect(() => parseBenchArgs(['--floor-steps', '--no-floor'])).toThrow(/--floor-steps needs the floor/);
  });

  it('--ceiling-kept adds the ceiling that reads back and records one outcome (off by default), only with the floor and the script', () => {
    expect(parseBenchArgs([]).ceilingKept).toBe(false);
    expect(parseBenchArgs(['--ceiling-kept']).ceilingKept).toBe(true);
    expect(() => parseBenchArgs(['--ceiling-kept', '--no-floor'])).toThrow(/--ceiling-kept needs the floor and the ceiling/);
    expect(() => parseBenchArgs(['--ceiling-kept', '--no-script'])).toThrow(/--ceiling-kept needs the floor and the ceiling/);
  });

  it('--rounds runs the pipeline, the floor and the ceiling again that many times (none by default), and only with the floor and the script', () => {
    expect(parseBenchArgs([]).rounds).toBe(0);
    expect(parseBenchArgs(['--rounds', '5']).rounds).toBe(5);
    expect(() => parseBenchArgs(['--rounds', '3', '--no-floor'])).toThrow(/--rounds needs the floor and the ceiling/);
    expect(() => parseBenchArgs(['--rounds', '3', '--no-script'])).toThrow(/--rounds needs the floor and the ceiling/);
    expect(() => parseBenchArgs(['--rounds', '-1'])).toThrow();
  });

  it('--engine picks the Temporal engine (else KRAKEN_TEMPORAL_ENGINE, else the dev server) and refuses others', () => {
    expect(parseBenchArgs([], {}).engine).toBe('dev');
    expect(parseBenchArgs([], { KRAKEN_TEMPORAL_ENGINE: 'server' }).engine).toBe('server');
    expect(parseBenchArgs(['--engine', 'server'], {}).engine).toBe('server');
    expect(parseBenchArgs(['--engine', 'dev'], { KRAKEN_TEMPORAL_ENGINE: 'server' }).engine).toBe('dev');
    expect(() => parseBenchArgs(['--engine', 'cloud'], {})).toThrow();
  });

  it("--events picks one event route (SQS, the deployment's, by default) or both, and refuses others", () => {
    expect(parseBenchArgs([]).eventsRoute).toBe('sqs');
    expect(parseBenchArgs(['--events', 'webhook']).eventsRoute).toBe('webhook');
    expect(parseBenchArgs(['--events', 'both']).eventsRoute).toBe('both');
    expect(() => parseBenchArgs(['--events', 'email'])).toThrow();
  });

  it('--cpu-prof profiles the workers into a directory, resolved against where the bench was started', () => {
    expect(parseBenchArgs([]).cpuProfileDir).toBeUndefined();
    expect(parseBenchArgs(['--cpu-prof', 'prof']).cpuProfileDir).toBe(path.resolve('prof'));
    const absolute = path.join(os.tmpdir(), 'bench-prof');
    expect(parseBenchArgs(['--cpu-prof', absolute]).cpuProfileDir).toBe(absolute);
    expect(() => parseBenchArgs(['--cpu-prof'])).toThrow();
  });

  it('--heap-probe samples the workers into a directory; --heap-snapshots only with it', () => {
    expect(parseBenchArgs([])).toMatchObject({ heapProbeDir: undefined, heapSnapshots: false });
    expect(parseBenchArgs(['--heap-probe', 'heap'])).toMatchObject({ heapProbeDir: path.resolve('heap'), heapSnapshots: false });
    expect(parseBenchArgs(['--heap-probe', 'heap', '--heap-snapshots']).heapSnapshots).toBe(true);
    expect(() => parseBenchArgs(['--heap-snapshots'])).toThrow(/needs --heap-probe/);
  });

  it('--worker-node-flags passes node flags to the workers, and nothing that is not a flag', () => {
    expect(parseBenchArgs([]).workerNodeFlags).toEqual([]);
    expect(parseBenchArgs(['--worker-node-flags', ' --max-semi-space-size=8  --trace-gc ']).workerNodeFlags).toEqual(['--max-semi-space-size=8', '--trace-gc']);
    expect(() => parseBenchArgs(['--worker-node-flags', 'rm -rf'])).toThrow();
  });

  it('rejects nonsense instead of benchmarking it', () => {
    expect(() => parseBenchArgs(['--accounts', 'lots'])).toThrow();
    expect(() => parseBenchArgs(['--accounts', '0'])).toThrow();
    expect(() => parseBenchArgs(['--concurrency', '501'])).toThrow();
    expect(() => parseBenchArgs(['--bogus'])).toThrow();
  });
});
