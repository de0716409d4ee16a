import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CodecKeyError, DEV_KEY_ID, loadCodecKeys, parseCodecKeyFile, parseCodecKeys } from '../../../codec/keys';

const b64 = (n = 32) => randomBytes(n).toString('base64');

function keyError(fn: () => unknown): CodecKeyError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CodecKeyError);
    return err as CodecKeyError;
  }
  throw new Error('expected a CodecKeyError');
}

describe('parseCodecKeys', () => {
  it('parses keyId:base64 entries in order, last is newest', () => {
    const k1 = b64();
    const k2 = b64();
    const ring = loadCodecKeys({ CODEC_KEYS: ` k1:${k1} , k2:${k2}`, KRAKEN_MIGRATE_MODE: 'production' });
    expect(ring.current.id).toBe('k2');
    expect(ring.current.key.equals(Buffer.from(k2, 'base64'))).toBe(true);
    expect([...ring.byId.keys()]).toEqual(['k1', 'k2']);
    expect(ring.devKey).toBe(false);
  });

  it('rejects a key of the wrong length, naming the variable but not the key', () => {
    const short = b64(16);
    const err = keyError(() => parseCodecKeys(`k1:${b64()},k2:${short}`));
    expect(err.code).toBe('codec_key_invalid');
    expect(err.variable).toBe('CODEC_KEYS');
    expect(err.message).toContain('CODEC_KEYS');
    expect(err.message).toContain('"k2"');
    expect(err.message).toContain('got 16');
    expect(err.message).not.toContain(short);
  });

  it('rejects an entry without an id without echoing it', () => {
    const bare = b64();
    const err = keyError(() => parseCodecKeys(bare));
    expect(err.code).toBe('codec_key_invalid');
    expect(err.message).not.toContain(bare);
  });

  it('rejects non-base64 keys, bad ids, duplicates and empty lists', () => {
    expect(keyError(() => parseCodecKeys('k1:not*base64!')).code).toBe('codec_key_invalid');
    expect(keyError(() => parseCodecKeys(`bad id:${b64()}`)).code).toBe('codec_key_invalid');
    expect(keyError(() => parseCodecKeys(`k1:${b64()},k1:${b64()}`)).message).toContain('listed twice');
    expect(keyError(() => parseCodecKeys(' , ')).code).toBe('codec_key_missing');
  });
});

describe('parseCodecKeyFile / CODEC_KEY_FILE', () => {
  it('reads {"keys":[…]} with the last key newest', () => {
    const file = JSON.stringify({
      keys: [
        { id: 'k1', key: b64() },
        { id: 'k2', key: b64() },
      ],
    });
    const ring = loadCodecKeys(
      { CODEC_KEY_FILE: '/etc/keys.json', KRAKEN_MIGRATE_MODE: 'production' },
      { readFile: (p) => (p === '/etc/keys.json' ? file : '') },
    );
    expect(ring.current.id).toBe('k2');
    expect(ring.byId.size).toBe(2);
  });

  it('reports bad JSON, bad shape and bad keys against CODEC_KEY_FILE', () => {
    for (const text of ['{not json', '{"keys":[]}', '{"keys":[{"id":"k1"}]}', JSON.stringify({ keys: [{ id: 'k1', key: b64(31) }] })]) {
      const err = keyError(() => parseCodecKeyFile(text));
      expect(err.code).toBe('codec_key_invalid');
      expect(err.variable).toBe('CODEC_KEY_FILE');
    }
  });

  it('reports an unreadable file as codec_key_missing', () => {
    const err = keyError(() => loadCodecKeys({ CODEC_KEY_FILE: '/nonexistent/kraken-keys.json', KRAKEN_MIGRATE_MODE: 'development' }));
    expect(err.code).toBe('codec_key_missing');
    expect(err.message).toContain('ENOENT');
  });

  it('refuses both sources at once', () => {
    const err = keyError(() => loadCodecKeys({ CODEC_KEYS: `k1:${b64()}`, CODEC_KEY_FILE: '/x.json', KRAKEN_MIGRATE_MODE: 'development' }));
    expect(err.code).toBe('codec_key_invalid');
  });
});

describe('no key configured', () => {
  it('development: a deterministic dev key, flagged and logged', () => {
    const warnings: Array<{ obj: object; msg: string }> = [];
    const logger = { warn: (obj: object, msg: string) => warnings.push({ obj, msg }) };
    const a = loadCodecKeys({ KRAKEN_MIGRATE_MODE: 'development' }, { logger });
    const b = loadCodecKeys({ KRAKEN_MIGRATE_MODE: 'development' });
    expect(a.devKey).toBe(true);
    expect(a.current.id).toBe(DEV_KEY_ID);
    expect(a.current.key).toHaveLength(32);
    expect(a.current.key.equals(b.current.key)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].obj).toMatchObject({ code: 'codec_dev_key' });
  });

  it('production: refused with codec_key_missing', () => {
    const err = keyError(() => loadCodecKeys({ KRAKEN_MIGRATE_MODE: 'production' }));
    expect(err.code).toBe('codec_key_missing');
    expect(err.message).toMatch(/CODEC_KEYS or CODEC_KEY_FILE/);
  });
});
