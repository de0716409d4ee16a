import { randomBytes } from 'node:crypto';
import { codecWarnings } from '../../../clients/temporal';
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { AesGcmCodec, ENCODING_ENCRYPTED, METADATA_KEY_ID } from '../../../codec/aes-gcm-codec';
import { CodecError } from '../../../codec/codec-error';
import { keyringFrom, type CodecKey } from '../../../codec/keys';
import { createCodec } from '../../../codec/data-converter';

const key = (id: string): CodecKey => ({ id, key: randomBytes(32) });
const MARKER = 'Jabłoński-SECRET-07123456789';
const meta = (p: Payload, k: string) => Buffer.from(p.metadata?.[k] ?? new Uint8Array()).toString('utf8');

async function codecError(p: Promise<unknown>): Promise<CodecError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CodecError);
  return err as CodecError;
}

describe('AesGcmCodec', () => {
  const k1 = key('k1');
  const k2 = key('k2');

  it('round-trips payloads, including metadata', async () => {
    const codec = new AesGcmCodec(keyringFrom([k1]));
    const input = [defaultPayloadConverter.toPayload({ name: MARKER, n: 7 }), defaultPayloadConverter.toPayload(undefined)];
    const encoded = await codec.encode(input);
    const decoded = await codec.decode(encoded);
    expect(defaultPayloadConverter.fromPayload(decoded[0])).toEqual({ name: MARKER, n: 7 });
    expect(defaultPayloadConverter.fromPayload(decoded[1])).toBeUndefined();
    expect(meta(decoded[0], 'encoding')).toBe('json/plain');
  });

  it('hides the plaintext and its encoding; fresh IV each time', async () => {
    const codec = new AesGcmCodec(keyringFrom([k1]));
    const plain = defaultPayloadConverter.toPayload({ name: MARKER });
    const [a, b] = await codec.encode([plain, plain]);
    expect(meta(a, 'encoding')).toBe(ENCODING_ENCRYPTED);
    expect(meta(a, METADATA_KEY_ID)).toBe('k1');
    expect(Buffer.from(a.data!).includes(Buffer.from(MARKER))).toBe(false);
    expect(Buffer.from(a.data!).includes(Buffer.from('json/plain'))).toBe(false);
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
  });

  it('rotation: payloads written with k1 still decode after k2 is added; new ones use k2', async () => {
    const old = await new AesGcmCodec(keyringFrom([k1])).encode([defaultPayloadConverter.toPayload('old')]);
    const rotated = new AesGcmCodec(keyringFrom([k1, k2]));
    expect(defaultPayloadConverter.fromPayload((await rotated.decode(old))[0])).toBe('old');
    const fresh = await rotated.encode([defaultPayloadConverter.toPayload('new')]);
    expect(meta(fresh[0], METADATA_KEY_ID)).toBe('k2');
    expect(defaultPayloadConverter.fromPayload((await rotated.decode(fresh))[0])).toBe('new');
  });

  it('passes through payloads that are not encrypted', async () => {
    const codec = new AesGcmCodec(keyringFrom([k1]));
    const plain = defaultPayloadConverter.toPayload({ a: 1 });
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('unknown key id → codec_unknown_key', async () => {
    const encoded = await new AesGcmCodec(keyringFrom([k2])).encode([defaultPayloadConverter.toPayload(1)]);
    const err = await codecError(new AesGcmCodec(keyringFrom([k1])).decode(encoded));
    expect(err.code).toBe('codec_unknown_key');
    expect(err.keyId).toBe('k2');
  });

  it('wrong key under the same id → codec_decrypt_failed', async () => {
    const encoded = await new AesGcmCodec(keyringFrom([k1])).encode([defaultPayloadConverter.toPayload(1)]);
    const err = await codecError(new AesGcmCodec(keyringFrom([key('k1')])).decode(encoded));
    expect(err.code).toBe('codec_decrypt_failed');
  });

  it('tampered ciphertext, truncation or a swapped key id → codec_decrypt_failed', async () => {
    const codec = new AesGcmCodec(keyringFrom([{ id: 'k1b', key: k1.key }, k1]));
    const [p] = await codec.encode([defaultPayloadConverter.toPayload({ name: MARKER })]);
    const flipped = Buffer.from(p.data!);
    flipped[20] ^= 0x01;
    expect((await codecError(codec.decode([{ ...p, data: flipped }]))).code).toBe('codec_decrypt_failed');
    expect((await codecError(codec.decode([{ ...p, data: p.data!.subarray(0, 10) }]))).code).toBe('codec_decrypt_failed');
    // Same key bytes, different id in metadata: the id is authenticated.
    const swapped = { ...p, metadata: { ...p.metadata, [METADATA_KEY_ID]: Buffer.from('k1b') } };
    expect((await codecError(codec.decode([swapped]))).code).toBe('codec_decrypt_failed');
  });

  it('createCodec reads CODEC_KEYS from config', async () => {
    const raw = randomBytes(32).toString('base64');
    const codec = createCodec({ CODEC_KEYS: `prod1:${raw}`, KRAKEN_MIGRATE_MODE: 'production' }, { logger: codecWarnings });
    expect(codec.currentKeyId).toBe('prod1');
    expect(codec.usesDevKey).toBe(false);
  });
});
