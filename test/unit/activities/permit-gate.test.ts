import { describe, expect, it } from 'vitest';
import { createPermitGate } from '../../../activities/platform-permits';
import type { Grant, HeldPermit, PaceStore, PermitRequest } from '../../../ledger';

const req = (holder: string): PermitRequest => ({ holder, priorityKey: 3, fairnessKey: 'OCTO', weight: 1 });

/** A ledger whose rounds grant what `decide` says, recording who asked in each round. */
function fakeStore(decide: (round: number, waiting: readonly PermitRequest[]) => string[]) {
  const rounds: string[][] = [];
  const store = {
    grant: async (_tenant: string, waiting: readonly PermitRequest[]) => {
      rounds.push(waiting.map((w) => w.holder));
      return new Map<string, Grant>(decide(rounds.length, waiting).map((h) => [h, { full: true }]));
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
    expect(a).toEqual({ full: true });
    expect(b).toEqual({ full: true });
    expect(rounds[0]).toEqual(['a']);
    expect(rounds[1]).toEqual(['a', 'b']);
    expect(rounds).toHaveLength(2);
  });

  it('an account given no permit within its wait gets none (its attempt comes back later); the others wait on', async () => {
    const { store, rounds } = fakeStore((round) => (round >= 4 ? ['late'] : []));
    const gate = createPermitGate(store, 'tenant', { tickMs: 10 });
    const [short, late] = await Promise.all([gate.acquire(req('short'), 15), gate.acquire(req('late'), 5_000)]);
    expect(short).toBeNull();
    expect(late).toEqual({ full: true });
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
    expect(await second).toEqual({ full: true });
  });

  it('while accounts wait, long-held permits whose account workflow has closed are given back; running or unknown ones stay', async () => {
    const held: HeldPermit[] = [
      { holder: 'terminated', grantedAt: 't1' },
      { holder: 'running', grantedAt: 't2' },
      { holder: 'unreachable', grantedAt: 't3' },
      { holder: 'gone', grantedAt: 't4' },
    ];
    const asked: { olderThanMs: number; limit: number }[] = [];
    const released: HeldPermit[][] = [];
    let rounds = 0;
    const store = {
      grant: async () => new Map<string, Grant>(++rounds >= 3 ? [['a', { full: true }]] : []),
      longHeld: async (_t: string, olderThanMs: number, limit: number) => (asked.push({ olderThanMs, limit }), held),
      release: async (_t: string, permits: readonly HeldPermit[]) => (released.push([...permits]), permits.length),
    } as unknown as PaceStore;
    const states: Record<string, 'running' | 'closed'> = { terminated: 'closed', running: 'running', gone: 'closed' };
    const workflowState = async (id: string) => {
      if (id === 'unreachable') throw new Error('Temporal away');
      return states[id];
    };
    const gate = createPermitGate(store, 'tenant', { tickMs: 5, sweep: { workflowState, olderThanMs: 30_000, everyMs: 60_000, batch: 50 } });
    expect(await gate.acquire(req('a'), 5_000)).toEqual({ full: true });
    // One sweep in three rounds (at most every minute), the permits freed those of closed workflows only.
    expect(asked).toEqual([{ olderThanMs: 30_000, limit: 50 }]);
    expect(released).toEqual([[held[0], held[3]]]);
  });

  it('sweeps again once its interval has passed', async () => {
    let t = 0;
    let sweeps = 0;
    const store = {
      grant: async () => new Map<string, Grant>([['a', { full: true }]]),
      longHeld: async () => (sweeps++, []),
      release: async () => 0,
    } as unknown as PaceStore;
    const gate = createPermitGate(store, 'tenant', {
      tickMs: 5,
      now: () => t,
      sweep: { workflowState: async () => 'closed', olderThanMs: 1, everyMs: 100, batch: 10 },
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
});
