import { describe, expect, it } from 'vitest';
import { createPermitGate } from '../../../activities/platform-permits';
import type { Grant, PaceStore, PermitRequest } from '../../../ledger';

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
});
