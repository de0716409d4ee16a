/**
 * A token bucket per source address, spent by refused deliveries only: a source that keeps sending
 * requests the receiver refuses (guessing the API key, replaying, flooding oversized bodies) is
 * answered 429 before its request is read, while the platform's sender, whose deliveries are
 * accepted, is never slowed (its own rate is the EventBridge API destination's invocation limit).
 * At most `maxSources` addresses are remembered (the least recently seen are forgotten first), so
 * the memory is bounded whatever the number of addresses.
 */
export interface SourceLimiterOptions {
  /** Refusals a source may have in a burst. */
  burst: number;
  /** Refusals a source regains per minute. */
  perMinute: number;
  maxSources?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class SourceLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  private readonly maxSources: number;

  constructor(private readonly opts: SourceLimiterOptions) {
    this.now = opts.now ?? Date.now;
    this.maxSources = opts.maxSources ?? 10_000;
  }

  private bucket(source: string): Bucket {
    const now = this.now();
    const b = this.buckets.get(source);
    if (!b) return { tokens: this.opts.burst, at: now };
    const refilled = Math.min(this.opts.burst, b.tokens + ((now - b.at) / 60_000) * this.opts.perMinute);
    return { tokens: refilled, at: now };
  }

  /** Whether the source may be heard, or the seconds until it may (a whole refusal regained). */
  check(source: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const b = this.bucket(source);
    if (b.tokens >= 1) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - b.tokens) * 60) / this.opts.perMinute)) };
  }

  /** One refusal spent by the source. */
  spend(source: string): void {
    const b = this.bucket(source);
    b.tokens = Math.max(0, b.tokens - 1);
    this.buckets.delete(source); // re-inserted last: the map's order is least recently seen first
    this.buckets.set(source, b);
    while (this.buckets.size > this.maxSources) this.buckets.delete(this.buckets.keys().next().value!);
  }

  get size(): number {
    return this.buckets.size;
  }
}
