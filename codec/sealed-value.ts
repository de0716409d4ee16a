import { createCipheriv, createDecipheriv } from 'node:crypto';
import { CodecError } from './codec-error';
import type { CodecKeyring } from './keys';
import { NONCE_BYTES, randomNonce } from './nonce';
import { secretKey } from './secret-key';

/**
 * Values sealed at rest with the payload codec's keyring (AES-256-GCM, the key id kept with each
 * value): the ledger's personal columns. The newest key seals; any configured key opens what it
 * sealed, so a key is rotated by adding a newer one, and older rows stay readable until they are
 * purged. The additional data binds each value to its key id and its column (`where`): a value
 * copied into another column, or relabelled with another key id, does not open.
 *
 * Text layout: `$sealed:v1:<key id>:<base64 of IV (12) | ciphertext | tag (16)>`.
 */

const PREFIX = '$sealed:v1:';
const IV_BYTES = NONCE_BYTES;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';
const aad = (keyId: string, where: string) => Buffer.from(`kraken-migrate/ledger/v1/${keyId}/${where}`, 'utf8');

export function isSealed(text: string): boolean {
  return text.startsWith(PREFIX);
}

export function sealText(keyring: CodecKeyring, where: string, plain: string): string {
  const { id, key } = keyring.current;
  const iv = randomNonce();
  const cipher = createCipheriv(ALGORITHM, secretKey(key), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(id, where));
  const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${id}:${body.toString('base64')}`;
}

/** The plain text of a sealed value; a value that is not sealed (written before sealing) as it is. */
export function openText(keyring: CodecKeyring, where: string, stored: string): string {
  if (!isSealed(stored)) return stored;
  const rest = stored.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  const keyId = colon > 0 ? rest.slice(0, colon) : '';
  const key = keyring.byId.get(keyId);
  if (!key)
    throw new CodecError('codec_unknown_key', `${where}: value sealed with key "${keyId}", which is not configured (CODEC_KEYS / CODEC_KEY_FILE)`, keyId);
  const data = Buffer.from(rest.slice(colon + 1), 'base64');
  if (data.length < IV_BYTES + TAG_BYTES) throw new CodecError('codec_decrypt_failed', `${where}: sealed value (key "${keyId}") is truncated`, keyId);
  try {
    const decipher = createDecipheriv(ALGORITHM, secretKey(key), data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(keyId, where));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new CodecError('codec_decrypt_failed', `${where}: cannot open sealed value with key "${keyId}": wrong key or tampered value`, keyId);
  }
}
