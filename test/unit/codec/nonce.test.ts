import { describe, expect, it } from 'vitest';
import { NONCE_BYTES, randomNonce } from '../../../codec/nonce';

describe('AES-GCM nonces drawn from the CSPRNG in blocks', () => {
  it('hands out 12-byte nonces, none twice, across several blocks', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const n = randomNonce();
      expect(n.length).toBe(NONCE_BYTES);
      seen.add(n.toString('hex'));
    }
    expect(seen.size).toBe(2000);
  });

  it('never changes a nonce already given: a used-up block is replaced, not refilled', () => {
    const first = randomNonce();
    const copy = Buffer.from(first);
    for (let i = 0; i < 1000; i++) randomNonce();
    expect(first.equals(copy)).toBe(true);
  });
});
