import { describe, expect, it } from 'vitest';
import { ConfigError, maskedConfig, parseConfig } from '../../../config';

describe('config', () => {
  it('names the variable and the expected form when a value is malformed', () => {
    expect(() => parseConfig({ DATABASE_URL: 'mysql://u:p@h/db' })).toThrowError(ConfigError);
    let msg = '';
    try {
      parseConfig({ DATABASE_URL: 'mysql://u:p@h/db', SANDBOX_FAULT_5XX_RATE: '2' });
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/DATABASE_URL=\(hidden\): a postgres:\/\/ or postgresql:\/\/ connection URL/);
    expect(msg).toMatch(/SANDBOX_FAULT_5XX_RATE="2"/);
    expect(msg).not.toContain('u:p@h');
  });

  it('refuses production mode without payload encryption keys', () => {
    expect(() => parseConfig({ KRAKEN_MIGRATE_MODE: 'production' })).toThrowError(/CODEC_KEYS or CODEC_KEY_FILE/);
  });

  it('refuses a non-HTTPS platform URL in production mode, naming each one; development allows the sandbox', () => {
    const prod = {
      KRAKEN_MIGRATE_MODE: 'production',
      CODEC_AUTH_MODE: 'shared-token',
      CODEC_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
      PLATFORM_BASE_URL: 'https://tenant.example/v1/',
      PLATFORM_V2_BASE_URL: 'https://tenant.example/v2/',
      PLATFORM_GRAPHQL_URL: 'https://tenant.example/v1/graphql/',
    };
    expect(parseConfig(prod).PLATFORM_BASE_URL).toBe('https://tenant.example/v1/');
    let msg = '';
    try {
      parseConfig({ ...prod, PLATFORM_V2_BASE_URL: 'http://tenant.example/v2/', PLATFORM_GRAPHQL_URL: 'tenant.example/graphql' });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/PLATFORM_V2_BASE_URL="http:\/\/tenant.example\/v2\/": must be an https:\/\/ URL in production mode/);
    expect(msg).toMatch(/PLATFORM_GRAPHQL_URL=.*must be an https:\/\/ URL/);
    expect(msg).not.toMatch(/PLATFORM_BASE_URL=/);
    // The defaults point at the local sandbox over HTTP: fine in development, refused in production.
    expect(() => parseConfig({})).not.toThrow();
    expect(() => parseConfig({ KRAKEN_MIGRATE_MODE: 'production', CODEC_KEYS: prod.CODEC_KEYS })).toThrowError(/PLATFORM_BASE_URL=.*https/);
  });

  it('masks secrets and database passwords when printed', () => {
    const cfg = parseConfig({ DATABASE_URL: 'postgres://me:hunter2@db:5432/x', PLATFORM_API_KEY: 'dik_live_secret_value' });
    const shown = JSON.stringify(maskedConfig(cfg));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('dik_live_secret_value');
    expect(shown).toContain('postgres://me:***@db:5432/x');
  });
});
