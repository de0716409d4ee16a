/** A small seeded PRNG (mulberry32): fault decisions must be reproducible from the `seed` option. */
export interface Prng {
  next(): number;
  chance(rate: number): boolean;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: T[]): T[];
  /** Starts the sequence again from `seed` (an admin reset replays the same fault draws). */
  reseed(seed: number): void;
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    // rate 0 never consumes a draw, so turning one knob on does not shift another knob's sequence.
    chance: (rate) => rate > 0 && (rate >= 1 || next() < rate),
    pick: (items) => items[Math.floor(next() * items.length)],
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    },
    reseed: (seed) => {
      state = seed >>> 0;
    },
  };
}

/** A stable hash of a string into [0, 1): deterministic catalogue prices without a PRNG stream. */
export function hashUnit(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}
