import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Secrets of the embedded stack: made once per data directory (mode 0600) and handed to the
 * processes through their environment, never printed and never written to stack.json.
 */
export const devSecretsSchema = z.object({
  PLATFORM_ORGANIZATION_SECRET_KEY: z.string().min(16),
  PLATFORM_API_KEY: z.string().min(16),
  EVENTS_WEBHOOK_SECRET: z.string().min(16),
  /** Optional in the schema: data directories made before the webhook's API key existed lack it. */
  EVENTS_WEBHOOK_API_KEY: z.string().min(16).optional(),
  CODEC_KEYS: z.string().min(16),
});
export type DevSecrets = z.infer<typeof devSecretsSchema>;

export function loadOrCreateDevSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, 'secrets.json');
  const rand = (n: number) => crypto.randomBytes(n).toString('base64url');
  if (fs.existsSync(file)) {
    const known = devSecretsSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    if (known.EVENTS_WEBHOOK_API_KEY) return known;
    const upgraded = { ...known, EVENTS_WEBHOOK_API_KEY: rand(32) };
    fs.writeFileSync(file, JSON.stringify(upgraded, null, 2), { mode: 0o600 });
    return upgraded;
  }
  const secrets: DevSecrets = {
    PLATFORM_ORGANIZATION_SECRET_KEY: `sk_sandbox_${rand(24)}`,
    PLATFORM_API_KEY: `dik_sandbox_${rand(24)}`,
    EVENTS_WEBHOOK_SECRET: rand(32),
    EVENTS_WEBHOOK_API_KEY: rand(32),
    CODEC_KEYS: `dev1:${crypto.randomBytes(32).toString('base64')}`,
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
