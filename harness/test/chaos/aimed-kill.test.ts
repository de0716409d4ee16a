import { describe, expect, it } from 'vitest';
import { deliverAimedKill, type AimedKillOptions } from '../../chaos/aimed-kill';

/**
 * A planned "kill -9 while a schedule call is in flight" is delivered for sure, or reported as the
 * harness's own problem: chaos seed 1807073807 planned two at 25.4% and 25.9%, killed a worker that
 * held no call for the second, and failed a sound run (lost 0, duplicated 0, wrong 0, early 0).
 * Here the sandbox and the workers are a script on a fake clock.
 */

const OPTS: AimedKillOptions = { maxKills: 3, aimMs: 1_000, giveUpMs: 10_000, proveMs: 500, pollMs: 20 };

/**
 * `holders[i]`: the worker holding a schedule call at the i-th look (undefined: none);
 * `cuts`: per kill of a holder, whether the sandbox then sees its call cut.
 */
function world(script: { holders: Array<string | undefined>; cuts: boolean[]; scheduling?: boolean[]; start?: number }) {
  let clock = script.start ?? 0;
  let looks = 0;
  let cut = 0;
  let kills = 0;
  const killed: string[] = [];
  const askedScheduling: number[] = [];
  let waited = 0;
  return {
    killed,
    askedScheduling,
    get waited() {
      return waited;
    },
    get clock() {
      return clock;
    },
    deps: {
      up: () => ['w1', 'w2'],
      waitForWorkers: async () => void (waited += 1),
      holder: async (candidates: string[]) => {
        const h = script.holders[Math.min(looks++, script.holders.length - 1)];
        return h && candidates.includes(h) ? { worker: h, ports: [40000 + looks] } : undefined;
      },
      cutSchedules: async () => cut,
      kill: async (w: string) => {
        killed.push(w);
        if (script.cuts[kills++]) cut += 1;
      },
      stillScheduling: async () => {
        askedScheduling.push(clock);
        return (script.scheduling ?? [true])[Math.min(askedScheduling.length - 1, (script.scheduling ?? [true]).length - 1)];
      },
      sleep: async (ms: number) => void (clock += ms),
      now: () => clock,
    },
  };
}

describe('an aimed kill', () => {
  it('waits for a worker to hold a schedule call, kills that one, and counts it once the sandbox saw the call cut', async () => {
    const w = world({ holders: [undefined, undefined, undefined, 'w2'], cuts: [true] });
    const r = await deliverAimedKill(w.deps, OPTS);
    expect(w.killed).toEqual(['w2']);
    expect(r).toMatchObject({ proven: true, killed: [{ worker: 'w2', cut: 1 }] });
    expect(r.problem).toBeUndefined();
  });

  it('never kills a worker that holds no call, however long it waits while accounts are still to schedule', async () => {
    const holders = [...Array<undefined>(200).fill(undefined), 'w1'];
    const w = world({ holders, cuts: [true] });
    const r = await deliverAimedKill(w.deps, OPTS);
    expect(w.killed).toEqual(['w1']);
    expect(r.proven).toBe(true);
    // Looked past the aim window: asked whether anything is left to schedule, and went on.
    expect(w.askedScheduling.length).toBeGreaterThan(0);
  });

  it('a kill whose call ended just before the signal is an ordinary kill: it aims again, with the workers back up, until one is cut', async () => {
    const w = world({ holders: ['w1', 'w2', 'w1'], cuts: [false, false, true] });
    const r = await deliverAimedKill(w.deps, OPTS);
    expect(w.killed).toEqual(['w1', 'w2', 'w1']);
    expect(r.killed.map((k) => k.cut)).toEqual([0, 0, 1]);
    expect(r.proven).toBe(true);
    expect(w.waited).toBe(3);
  });

  it('gives up, saying why, only when no account is left to schedule, when the tries run out, or after the overall bound', async () => {
    const none = world({ holders: [undefined], cuts: [], scheduling: [false] });
    expect(await deliverAimedKill(none.deps, OPTS)).toEqual({ killed: [], proven: false, problem: 'no account left to schedule: no call can be cut' });
    expect(none.killed).toEqual([]);

    const missing = world({ holders: ['w1'], cuts: [false, false, false] });
    const r = await deliverAimedKill(missing.deps, OPTS);
    expect(r).toMatchObject({ proven: false, problem: "3 kills of a schedule call's holder, none seen to cut the call" });
    expect(missing.killed).toHaveLength(3);

    const never = world({ holders: [undefined], cuts: [] });
    expect(await deliverAimedKill(never.deps, OPTS)).toEqual({ killed: [], proven: false, problem: 'no worker held a schedule call in 10 s' });
    expect(never.killed).toEqual([]);
  });

  it("a cut counted before the holder was found (another kill's) does not prove this one", async () => {
    const w = world({ holders: ['w1', 'w2'], cuts: [false, true] });
    // A cut from an earlier kill is already on the sandbox's count when this one starts.
    let extra = 1;
    const deps = { ...w.deps, cutSchedules: async () => (await w.deps.cutSchedules()) + extra };
    const r = await deliverAimedKill(deps, OPTS);
    extra = 0;
    expect(r.killed.map((k) => [k.worker, k.cut])).toEqual([
      ['w1', 0],
      ['w2', 1],
    ]);
  });

  it('keeps to its clock: asks about the schedule once per aim window, gives up at the bound, waits for the proof only as long as needed', async () => {
    const opts: AimedKillOptions = { maxKills: 2, aimMs: 100, giveUpMs: 240, proveMs: 500, pollMs: 20 };
    // Looks at t = 1000, 1020, …: the schedule is asked about once each 100 ms of looking.
    const patient = world({ holders: [undefined], cuts: [], start: 1000 });
    expect(await deliverAimedKill(patient.deps, opts)).toMatchObject({ proven: false, problem: 'no worker held a schedule call in 0 s' });
    expect(patient.askedScheduling).toEqual([1100, 1200]);
    // Gave up on the look at 1240 (240 ms after the start), not one later.
    expect(patient.clock).toBe(1240);
    // A holder on the look just after the bound is never reached; on the look at it, it is.
    const late = world({ holders: [...Array<undefined>(13).fill(undefined), 'w1'], cuts: [true], start: 1000 });
    expect((await deliverAimedKill(late.deps, opts)).killed).toEqual([]);
    const onTime = world({ holders: [...Array<undefined>(12).fill(undefined), 'w1'], cuts: [true], start: 1000 });
    expect((await deliverAimedKill(onTime.deps, opts)).proven).toBe(true);
    // Proven on the first check after the kill: no waiting out the proof window.
    const quick = world({ holders: ['w1'], cuts: [true], start: 1000 });
    await deliverAimedKill(quick.deps, opts);
    expect(quick.clock).toBe(1100);
    // Not proven: the whole window, 500 ms in 100 ms steps, then the next try.
    const slow = world({ holders: ['w1'], cuts: [false, false], start: 1000 });
    await deliverAimedKill(slow.deps, opts);
    expect(slow.clock).toBe(2000);
  });
});
