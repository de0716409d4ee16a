import { describe, expect, it } from 'vitest';
import { isSealed, openText, sealText } from '../../../codec/sealed-value';
import { keyringFrom, type CodecKey } from '../../../codec/keys';

const key = (id: string, fill: number): CodecKey => ({ id, key: Buffer.alloc(32, fill) });
const k1 = keyringFrom([key('k1', 1)]);
const k1k2 = keyringFrom([key('k1', 1), key('k2', 2)]);
const k2only = keyringFrom([key('k2', 2)]);
const WHERE = 'account_payloads.request';

describe('sealed ledger values', () => {
  it('seal with the newest key, the key id in clear, the value not', () => {
    const s = sealText(k1k2, WHERE, '31/02/1980 Wilhelmina');
    expect(isSealed(s)).toBe(true);
    expect(s.startsWith('$sealed:v1:k2:')).toBe(true);
    expect(s).not.toContain('Wilhelmina');
    expect(openText(k1k2, WHERE, s)).toBe('31/02/1980 Wilhelmina');
    // Random IV: the same value seals differently each time (no equality leak).
    expect(sealText(k1k2, WHERE, 'x')).not.toBe(sealText(k1k2, WHERE, 'x'));
  });

  it('rotation: values sealed with an older key still open once a newer one is added; a keyring without it names the key', () => {
    const old = sealText(k1, WHERE, 'old value');
    expect(openText(k1k2, WHERE, old)).toBe('old value');
    expect(() => openText(k2only, WHERE, old)).toThrow(expect.objectContaining({ code: 'codec_unknown_key', keyId: 'k1' }) as Error);
  });

  it('refuses a value moved to another column, relabelled with another key id, tampered or truncated', () => {
    const s = sealText(k1k2, WHERE, 'value');
    expect(() => openText(k1k2, 'account_errors.detail', s)).toThrow(expect.objectContaining({ code: 'codec_decrypt_failed' }) as Error);
    expect(() => openText(k1k2, WHERE, s.replace(':k2:', ':k1:'))).toThrow(expect.objectContaining({ code: 'codec_decrypt_failed' }) as Error);
    const body = Buffer.from(s.split(':').pop()!, 'base64');
    body[14] ^= 1;
    expect(() => openText(k1k2, WHERE, `$sealed:v1:k2:${body.toString('base64')}`)).toThrow(expect.objectContaining({ code: 'codec_decrypt_failed' }) as Error);
    expect(() => openText(k1k2, WHERE, '$sealed:v1:k2:AAAA')).toThrow(expect.objectContaining({ code: 'codec_decrypt_failed' }) as Error);
  });

  it('a value written before sealing reads as it is', () => {
    expect(openText(k1, WHERE, 'plain detail')).toBe('plain detail');
  });
});
