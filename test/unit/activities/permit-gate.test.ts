import { describe, expect, it } from 'vitest';
import { createPermitGate } from '../../../activities/platform-permits';
import type { WorkflowAnswer } from '../../../domain/platform-pace';
import type { Answer, Grant, HeldPermit, PaceStore, PermitRequest } from '../../../ledger';

const req = (holder: string): PermitRequest => ({ holder, priorityKey: 3, fairnessKey: 'OCTO', weight: 1 });

/** A ledger whose rounds grant what `decide` says, recording who asked in each round. */
function fakeStore(decide: (round: number, waiting: readonly PermitRequest[]) => string[]) {
  const rounds: string[][] = [];
  const store = {
    grant: async (_tenant: string, waiting: readonly PermitRequest[]) => {
      rounds.push(waiting.map((w) => w.holder));
      return new Map<string, Grant>(decide(rounds.length, waiting).map((h) => [h, { full: true, window: 4 }]));
    },
    answered: async () => undefined,
  } as unknown as PaceStore;
  return { store, rounds };
}

describe("a worker's accounts waiting for permits", () => {
  it('ask together: one ledger round for every account waiting, at once and then every tick', async () => {
    const { store, rounds } = fakeStore((round) => (round === 1 ? [] : ['a', 'b']));
    const gate = createPermitGate(store, 'tenant', { tickMs: 10 });
    const [a, b] = await Promise.all([gate.acquire(req('a'), 5_000), gate.acquire(req('b'), 5_000)]);
    expect(a).toEqual({ full: true, window: 4 });
    expect(b).toEqual({ full: true, window: 4 });
    expect(rounds[0]).toEqual(['a']);
    expect(rounds[1]).toEqual(['a', 'b']);
    expect(rounds).toHaveLength(2);
  });

  it('an account given no permit within its wait gets none (its attempt comes back later); the others wait on', async () => {
    const { store, rounds } = fakeStore((round) => (round >= 4 ? ['late'] : []));
    const gate = createPermitGate(store, 'tenant', { tickMs: 10 });
    const [short, late] = await Promise.all([gate.acquire(req('short'), 15), gate.acquire(req('late'), 5_000)]);
    expect(short).toBeNull();
    expect(late).toEqual({ full: true, window: 4 });
    expect(rounds.at(-1)).toEqual(['late']);
  });

  it('a ledger that does not answer: the accounts wait on until their deadline, then get none', async () => {
    const store = {
      grant: async () => {
        throw new Error('connection refused');
      },
    } as unknown as PaceStore;
    const warned: unknown[] = [];
    const gate = createPermitGate(store, 'tenant', { tickMs: 5, logger: { warn: (o: unknown) => warned.push(o) } });
    expect(await gate.acquire(req('a'), 30)).toBeNull();
    expect(warned.length).toBeGreaterThan(0);
  });

  it('the same account asking again replaces its earlier ask', async () => {
    const { store } = fakeStore((round) => (round >= 3 ? ['a'] : []));
    const gate = createPermitGate(store, 'tenant', { tickMs: 10 });
    const first = gate.acquire(req('a'), 5_000);
    const second = gate.acquire(req('a'), 5_000);
    expect(await first).toBeNull();
    expect(await second).toEqual({ full: true, window: 4 });
  });

  it('while accounts wait, long-held permits whose account workflow has closed are given back; running, unknown or young ones stay', async () => {
    const permit = (holder: string, heldMs: number): HeldPermit => ({ holder, grantedAt: `t-${holder}`, heldMs });
    const held = [
      permit('young', 1_000),
      permit('terminated', 40_000),
      permit('running', 50_000),
      permit('unreachable', 60_000),
      permit('gone', 70_000),
      permit('timed-out', 35_000),
    ];
    const released: Pick<HeldPermit, 'holder' | 'grantedAt'>[][] = [];
    const asked: string[] = [];
    let rounds = 0;
    const store = {
      grant: async () => new Map<string, Grant>(++rounds >= 3 ? [['a', { full: true, window: 4 }]] : []),
      heldPermits: async () => ({ holdMs: null, permits: held }),
      release: async (_t: string, permits: readonly HeldPermit[]) => (released.push([...permits]), permits.length),
    } as unknown as PaceStore;
    const answers: Record<string, WorkflowAnswer> = {
      terminated: { kind: 'status', status: 'TERMINATED' },
      running: { kind: 'status', status: 'RUNNING' },
      gone: { kind: 'not-found' },
      'timed-out': { kind: 'status', status: 'TIMED_OUT' },
    };
    const workflowState = async (id: string) => {
      asked.push(id);
      if (id === 'unreachable') throw new Error('Temporal away');
      return answers[id];
    };
    const info: unknown[] = [];
    const gate = createPermitGate(store, 'tenant', {
      tickMs: 5,
      logger: { warn: () => undefined, info: (o: unknown) => info.push(o) },
      sweep: { workflowState, olderThanMs: 30_000, everyMs: 60_000, batch: 4 },
    });
    expect(await gate.acquire(req('a'), 5_000)).toEqual({ full: true, window: 4 });
    // One sweep in three rounds (at most every minute): the four oldest past 30 s asked, those closed or gone freed.
    expect(asked).toEqual(['gone', 'unreachable', 'running', 'terminated']);
    expect(released).toEqual([[permit('gone', 70_000), permit('terminated', 40_000)]]);
    expect(info).toEqual([{ freed: 2 }]);
  });

  it('sweeps again once its interval has passed', async () => {
    let t = 0;
    let sweeps = 0;
    const store = {
      grant: async () => new Map<string, Grant>([['a', { full: true, window: 4 }]]),
      heldPermits: async () => (sweeps++, { holdMs: null, permits: [] }),
      release: async () => 0,
    } as unknown as PaceStore;
    const gate = createPermitGate(store, 'tenant', {
      tickMs: 5,
      now: () => t,
      sweep: { workflowState: async () => ({ kind: 'not-found' }), olderThanMs: 1, everyMs: 100, batch: 10 },
    });
    await gate.acquire(req('a'), 5_000);
    expect(sweeps).toBe(1);
    t = 99;
    await gate.acquire(req('a'), 5_000);
    expect(sweeps).toBe(1);
    t = 100;
    await gate.acquire(req('a'), 5_000);
    expect(sweeps).toBe(2);
  });

  it('answers that come while one is being written go together in the next write; a failed write fails each of its answers', async () => {
    const writes: string[][] = [];
    let fail = false;
    let release: () => void = () => undefined;
    const store = {
      answeredAll: async (_tenant: string, answers: readonly Answer[]) => {
        writes.push(answers.map((a) => a.holder));
        await new Promise<void>((resolve) => (release = resolve));
        if (fail) throw new Error('connection refused');
      },
    } as unknown as PaceStore;
    const gate = createPermitGate(store, 'tenant', { tickMs: 10 });
    const first = gate.answered('a', { kind: 'accepted', latencyMs: 5, full: true }, true);
    const rest = [gate.answered('b', undefined, false), gate.answered('c', { kind: 'throttled' }, false)];
    expect(writes).toEqual([['a']]);
    release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([['a'], ['b', 'c']]);
    fail = true;
    release();
    for (const r of rest) await expect(r).rejects.toThrow('connection refused');
    // The gate writes again on the next answer.
    fail = false;
    const later = gate.answered('d', undefined, false);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await later;
    expect(writes).toEqual([['a'], ['b', 'c'], ['d']]);
  });
});
