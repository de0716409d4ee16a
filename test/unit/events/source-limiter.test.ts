import { describe, expect, it } from 'vitest';
import { SourceLimiter } from '../../../events/source-limiter';

/**
 * The webhook's per-source limit on refused deliveries (events/source-limiter.ts), on a clock of the
 * test's own: how many refusals a source is heard for, and when it is heard again. The receiver's
 * 429 on the wire is tested in webhook.test.ts.
 */

const MINUTE = 60_000;

/** Refusals the source is heard for in a row now (check, then spend, until it is held). */
function heardInARow(l: SourceLimiter, source: string): number {
  let n = 0;
  while (l.check(source).ok && n < 1_000) {
    l.spend(source);
    n++;
  }
  return n;
}

describe('refusals per source', () => {
  it('a new source is heard for `burst` refusals, then held', () => {
    const l = new SourceLimiter({ burst: 3, perMinute: 6, now: () => 0 });
    expect(heardInARow(l, 'guesser')).toBe(3);
    expect(l.check('guesser')).toEqual({ ok: false, retryAfterSeconds: 10 });
  });

  it('after a quiet hour a source has banked `burst` refusals, never an hour’s worth', () => {
    let now = 0;
    const l = new SourceLimiter({ burst: 3, perMinute: 6, now: () => now });
    expect(heardInARow(l, 'guesser')).toBe(3);
    now += 60 * MINUTE;
    expect(heardInARow(l, 'guesser')).toBe(3);
    // A day, and one refusal short of a burst: still a burst at most.
    now += 24 * 60 * MINUTE;
    l.spend('guesser');
    now += 24 * 60 * MINUTE;
    expect(heardInARow(l, 'guesser')).toBe(3);
  });

  it('regains `perMinute` refusals a minute while held: one every 10 s at 6 a minute, and says how long to wait', () => {
    let now = 0;
    const l = new SourceLimiter({ burst: 3, perMinute: 6, now: () => now });
    heardInARow(l, 'guesser');
    now += 4_000;
    expect(l.check('guesser')).toEqual({ ok: false, retryAfterSeconds: 6 });
    now += 6_000;
    expect(heardInARow(l, 'guesser')).toBe(1);
    now += 20_000;
    expect(heardInARow(l, 'guesser')).toBe(2);
    // A slow rate: a whole minute until the next refusal is heard, never less than a second.
    const slow = new SourceLimiter({ burst: 1, perMinute: 1, now: () => now });
    slow.spend('x');
    expect(slow.check('x')).toEqual({ ok: false, retryAfterSeconds: 60 });
    now += 59_999;
    expect(slow.check('x')).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('one source’s refusals cost another nothing', () => {
    const l = new SourceLimiter({ burst: 2, perMinute: 1, now: () => 0 });
    expect(heardInARow(l, 'a')).toBe(2);
    expect(heardInARow(l, 'b')).toBe(2);
  });

  it('forgets the least recently seen sources past its bound', () => {
    const l = new SourceLimiter({ burst: 1, perMinute: 1, maxSources: 2, now: () => 0 });
    l.spend('a');
    l.spend('b');
    expect(l.check('a').ok).toBe(false);
    l.spend('c'); // 'a' was seen first: forgotten, so heard again
    expect(l.size).toBe(2);
    expect(l.check('a').ok).toBe(true);
    expect(l.check('b').ok).toBe(false);
    // Seen again, 'b' is the most recent: 'c' goes next.
    l.spend('b');
    l.spend('d');
    expect(l.check('c').ok).toBe(true);
    expect(l.check('b').ok).toBe(false);
  });
});
