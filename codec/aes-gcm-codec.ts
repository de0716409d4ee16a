import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { CodecError } from './codec-error';
import type { CodecKeyring } from './keys';
import { NONCE_BYTES, randomNonce } from './nonce';
import { secretKey } from './secret-key';

export const ENCODING_ENCRYPTED = 'binary/encrypted';
export const METADATA_ENCODING = 'encoding';
export const METADATA_KEY_ID = 'encryption-key-id';

const IV_BYTES = NONCE_BYTES;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

const text = (b: Uint8Array | null | undefined): string | undefined => (b ? Buffer.from(b).toString('utf8') : undefined);
const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

// Binding the key id into the tag stops a payload's metadata being swapped to another key id.
const aad = (keyId: string) => Buffer.from(`kraken-migrate/payload/v1/${keyId}`, 'utf8');

/**
 * Encrypts each whole serialized Payload (metadata included, so the original encoding is hidden
 * too) with AES-256-GCM. Wire layout of `data`: IV (12) | ciphertext | tag (16).
 */
export class AesGcmCodec implements PayloadCodec {
  constructor(private readonly keyring: CodecKeyring) {}

  get currentKeyId(): string {
    return this.keyring.current.id;
  }

  /** True when running on the fixed development key (no key configured). */
  get usesDevKey(): boolean {
    return this.keyring.devKey;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encryptOne(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decryptOne(p));
  }

  private encryptOne(payload: Payload): Payload {
    const { id, key } = this.keyring.current;
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const iv = randomNonce();
    const cipher = createCipheriv(ALGORITHM, secretKey(key), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(id));
    const body = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { [METADATA_ENCODING]: bytes(ENCODING_ENCRYPTED), [METADATA_KEY_ID]: bytes(id) },
      data: new Uint8Array(body),
    };
  }

  private decryptOne(payload: Payload): Payload {
    if (text(payload.metadata?.[METADATA_ENCODING]) !== ENCODING_ENCRYPTED) return payload;
    const keyId = text(payload.metadata?.[METADATA_KEY_ID]);
    if (!keyId) throw new CodecError('codec_unknown_key', `encrypted payload has no ${METADATA_KEY_ID} metadata`);
    const key = this.keyring.byId.get(keyId);
    if (!key) {
      throw new CodecError('codec_unknown_key', `payload encrypted with key "${keyId}", which is not configured (CODEC_KEYS / CODEC_KEY_FILE)`, keyId);
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new CodecError('codec_decrypt_failed', `encrypted payload (key "${keyId}") is truncated`, keyId);
    }
    let plain: Buffer;
    try {
      const decipher = createDecipheriv(ALGORITHM, secretKey(key), data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(keyId));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new CodecError('codec_decrypt_failed', `cannot decrypt payload with key "${keyId}": wrong key or tampered ciphertext`, keyId);
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
