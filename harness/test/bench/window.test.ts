import { describe, expect, it } from 'vitest';
import { slidingWindow } from '../../bench/window';

describe('slidingWindow', () => {
  it('never has more than `concurrency` calls in flight, starts the next as soon as one ends, keeps order', async () => {
    let inFlight = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await slidingWindow([30, 5, 5, 5, 5, 5], 2, async (ms, i) => {
      started.push(i);
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return i * 10;
    });
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results).toEqual([0, 10, 20, 30, 40, 50].map((value) => ({ ok: true, value })));
  });

  it('keeps a failure as that item’s result and goes on with the rest', async () => {
    const results = await slidingWindow(['a', 'boom', 'c'], 3, async (x) => {
      if (x === 'boom') throw new Error('nope');
      return x.toUpperCase();
    });
    expect(results[0]).toEqual({ ok: true, value: 'A' });
    expect(results[1].ok).toBe(false);
    expect((results[1] as { error: Error }).error.message).toBe('nope');
    expect(results[2]).toEqual({ ok: true, value: 'C' });
  });

  it('rejects a concurrency below 1', async () => {
    await expect(slidingWindow([1], 0, async (x) => x)).rejects.toThrow(RangeError);
  });
});
