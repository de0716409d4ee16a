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

  it('masks secrets and database passwords when printed', () => {
    const cfg = parseConfig({ DATABASE_URL: 'postgres://me:hunter2@db:5432/x', PLATFORM_API_KEY: 'dik_live_secret_value' });
    const shown = JSON.stringify(maskedConfig(cfg));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('dik_live_secret_value');
    expect(shown).toContain('postgres://me:***@db:5432/x');
  });
});
