import { createSecretKey, type KeyObject } from 'node:crypto';

const keyObjects = new WeakMap<Buffer, KeyObject>();

/**
 * The key as node's KeyObject, made once per key: `createCipheriv` given raw key bytes imports them
 * into a new KeyObject on every call, which was more than half of an AES-GCM encryption of a small
 * payload (docs/throughput.md, "Where the cost goes"). Keys live as long as the keyring holding them.
 */
export function secretKey(key: Buffer): KeyObject {
  let k = keyObjects.get(key);
  if (!k) {
    k = createSecretKey(key);
    keyObjects.set(key, k);
  }
  return k;
}
