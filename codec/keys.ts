import fs from 'node:fs';
import { hkdfSync } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../config';

/** AES-256: every key is exactly 32 bytes. */
export const KEY_BYTES = 32;
export const DEV_KEY_ID = 'dev';

export type CodecKeyErrorCode = 'codec_key_invalid' | 'codec_key_missing';

/** Errors name the variable and the entry, never the key material. */
export class CodecKeyError extends Error {
  constructor(
    readonly code: CodecKeyErrorCode,
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'CodecKeyError';
  }
}

export interface CodecKey {
  id: string;
  key: Buffer;
}

export interface CodecKeyring {
  /** The newest key (last listed): used to encrypt. */
  current: CodecKey;
  /** Every configured key by id: used to decrypt. */
  byId: ReadonlyMap<string, Buffer>;
  /** True when no key was configured and the fixed development key is in use. */
  devKey: boolean;
}

const keyIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" or "-" (1-64 characters)');
// Buffer.from(…, 'base64') silently skips junk, so validate the alphabet first.
const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const keyFileSchema = z.object({
  keys: z.array(z.object({ id: z.string(), key: z.string() })).min(1),
});

function decodeKey(variable: string, where: string, id: string, b64: string): CodecKey {
  const idCheck = keyIdSchema.safeParse(id);
  if (!idCheck.success) {
    throw new CodecKeyError('codec_key_invalid', variable, `${where}: key id must be ${idCheck.error.issues[0].message}`);
  }
  const trimmed = b64.trim();
  if (!base64Re.test(trimmed)) {
    throw new CodecKeyError('codec_key_invalid', variable, `${where} (id "${id}"): key is not valid base64`);
  }
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) {
    throw new CodecKeyError('codec_key_invalid', variable, `${where} (id "${id}"): key must decode to ${KEY_BYTES} bytes, got ${key.length}`);
  }
  return { id, key };
}

function checkUnique(variable: string, keys: CodecKey[]): CodecKey[] {
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k.id)) throw new CodecKeyError('codec_key_invalid', variable, `key id "${k.id}" is listed twice`);
    seen.add(k.id);
  }
  return keys;
}

/** Parses `keyId:base64key[,keyId:base64key…]`; order is oldest first. */
export function parseCodecKeys(text: string, variable = 'CODEC_KEYS'): CodecKey[] {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  if (entries.length === 0) throw new CodecKeyError('codec_key_missing', variable, 'no keys listed');
  return checkUnique(
    variable,
    entries.map((entry, i) => {
      const colon = entry.indexOf(':');
      // The entry itself may be a bare key: do not echo it.
      if (colon <= 0) throw new CodecKeyError('codec_key_invalid', variable, `entry ${i + 1}: expected keyId:base64key`);
      return decodeKey(variable, `entry ${i + 1}`, entry.slice(0, colon), entry.slice(colon + 1));
    }),
  );
}

/** Parses the key file's JSON text: `{"keys":[{"id":"k1","key":"<base64>"}, …]}`, oldest first. */
export function parseCodecKeyFile(json: string, variable = 'CODEC_KEY_FILE'): CodecKey[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new CodecKeyError('codec_key_invalid', variable, 'file is not valid JSON');
  }
  const parsed = keyFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CodecKeyError('codec_key_invalid', variable, `file must be {"keys":[{"id","key"}, …]} (${issue.path.join('.') || 'root'}: ${issue.message})`);
  }
  return checkUnique(
    variable,
    parsed.data.keys.map((k, i) => decodeKey(variable, `keys[${i}]`, k.id, k.key)),
  );
}

/** Deterministic, public, and therefore only fit for a developer's machine. */
export function devCodecKey(): CodecKey {
  const key = Buffer.from(hkdfSync('sha256', 'kraken-migrate', 'development-only', 'codec-dev-key/v1', KEY_BYTES));
  return { id: DEV_KEY_ID, key };
}

export function keyringFrom(keys: CodecKey[], devKey = false): CodecKeyring {
  if (keys.length === 0) throw new CodecKeyError('codec_key_missing', 'CODEC_KEYS', 'no keys');
  return { current: keys[keys.length - 1], byId: new Map(keys.map((k) => [k.id, k.key])), devKey };
}

export type CodecKeyConfig = Pick<Config, 'CODEC_KEYS' | 'CODEC_KEY_FILE' | 'KRAKEN_MIGRATE_MODE'>;

export interface LoadCodecKeysOptions {
  logger?: { warn: (obj: object, msg: string) => void };
  readFile?: (path: string) => string;
}

export function loadCodecKeys(cfg: CodecKeyConfig, opts: LoadCodecKeysOptions = {}): CodecKeyring {
  if (cfg.CODEC_KEYS && cfg.CODEC_KEY_FILE) {
    // Two sources would make "the last key is the newest" ambiguous.
    throw new CodecKeyError('codec_key_invalid', 'CODEC_KEYS', 'set CODEC_KEYS or CODEC_KEY_FILE, not both');
  }
  if (cfg.CODEC_KEYS) return keyringFrom(parseCodecKeys(cfg.CODEC_KEYS));
  if (cfg.CODEC_KEY_FILE) {
    const read = opts.readFile ?? ((p: string) => fs.readFileSync(p, 'utf8'));
    let text: string;
    try {
      text = read(cfg.CODEC_KEY_FILE);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'read error';
      throw new CodecKeyError('codec_key_missing', 'CODEC_KEY_FILE', `cannot read ${cfg.CODEC_KEY_FILE} (${code})`);
    }
    return keyringFrom(parseCodecKeyFile(text));
  }
  if (cfg.KRAKEN_MIGRATE_MODE === 'production') {
    throw new CodecKeyError('codec_key_missing', 'CODEC_KEYS', 'CODEC_KEYS or CODEC_KEY_FILE is required in production mode');
  }
  opts.logger?.warn({ code: 'codec_dev_key', keyId: DEV_KEY_ID }, 'no CODEC_KEYS/CODEC_KEY_FILE: encrypting Temporal payloads with the fixed development key');
  return keyringFrom([devCodecKey()], true);
}
