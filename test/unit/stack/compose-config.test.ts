import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema } from '../../../config';

// docker-compose.yml describes production: every variable the kraken-migrate services get must be
// one the config module reads, or the deployment is silently misconfigured.
describe('docker-compose.yml', () => {
  const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true });
  const known = new Set(Object.keys(configSchema.shape));
  const ours = ['worker', 'events', 'codec'];

  it.each(ours)('service %s only uses variables the config schema declares', (name) => {
    const env = compose.services[name].environment as Record<string, string>;
    expect(Object.keys(env).length).toBeGreaterThan(10);
    const unknown = Object.keys(env).filter((k) => !known.has(k));
    expect(unknown).toEqual([]);
  });

  it('keeps secrets out of the file (they come from the env file)', () => {
    const env = compose.services.worker.environment as Record<string, string>;
    for (const secret of ['PLATFORM_API_KEY', 'PLATFORM_ORGANIZATION_SECRET_KEY', 'EVENTS_WEBHOOK_SECRET', 'CODEC_KEYS']) {
      expect(env[secret]).toBeUndefined();
    }
    expect(compose.services.worker.env_file).toBe('kraken-migrate.env');
  });
});
