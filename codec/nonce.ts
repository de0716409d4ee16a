import { randomFillSync } from 'node:crypto';

/** AES-GCM's nonce: 96 bits. */
export const NONCE_BYTES = 12;
/** How many nonces one draw from the CSPRNG serves. */
const NONCES_PER_DRAW = 256;

let block = Buffer.alloc(0);
let next = 0;

/**
 * A fresh random AES-GCM nonce: a slice of a block drawn from node's CSPRNG for NONCES_PER_DRAW
 * nonces at once (as node's own `randomUUID` does). One `randomBytes(12)` a value cost about as much
 * as sealing a small payload (docs/throughput.md, "Where the cost goes"). A used-up block is
 * replaced, never written again, so no slice is handed out twice and a nonce given stays as it was.
 * The block lives in this process (and thread) only: node never forks a running process.
 */
export function randomNonce(): Buffer {
  if (next + NONCE_BYTES > block.length) {
    block = randomFillSync(Buffer.allocUnsafe(NONCE_BYTES * NONCES_PER_DRAW));
    next = 0;
  }
  const nonce = block.subarray(next, next + NONCE_BYTES);
  next += NONCE_BYTES;
  return nonce;
}
