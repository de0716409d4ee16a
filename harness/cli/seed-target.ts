import type { Config } from '../../config';

/**
 * Why a ledger must not receive seeded rows, or undefined when it is a local development one.
 * `db seed-ledger` writes a million fake attempts: pointed at a production ledger by accident it
 * would bury real outcomes and feed fake accounts to `rerun-failed`. Local means: development mode,
 * a database on this machine, and the platform sandbox on this machine (a configured tenant says
 * this environment migrates for real, whatever the database).
 */
export function seedRefusal(cfg: Pick<Config, 'KRAKEN_MIGRATE_MODE' | 'DATABASE_URL' | 'PLATFORM_V2_BASE_URL'>): string | undefined {
  if (cfg.KRAKEN_MIGRATE_MODE === 'production') return 'KRAKEN_MIGRATE_MODE is production';
  const db = hostOf(cfg.DATABASE_URL);
  if (db === undefined) return 'DATABASE_URL is not a postgres:// URL with a host';
  if (!isLoopback(db)) return `DATABASE_URL's host ${db} is not this machine (127.0.0.1, ::1 or localhost)`;
  const platform = hostOf(cfg.PLATFORM_V2_BASE_URL);
  if (platform === undefined || !isLoopback(platform)) return `PLATFORM_V2_BASE_URL's host ${platform ?? '?'} is a tenant, not the local sandbox`;
  return undefined;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const host = new URL(url).hostname;
    return host === '' ? undefined : host.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
