import { describe, expect, it } from 'vitest';
import { ConfigError, maskedConfig, parseConfig } from '../../../config';
import { isLoopbackHost, perimeterProblems, postgresTarget } from '../../../config/production-checks';

/** Production mode refuses each insecure setting at start-up, naming the option to change. */

const PROD = {
  KRAKEN_MIGRATE_MODE: 'production',
  CODEC_AUTH_MODE: 'shared-token',
  CODEC_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
  PLATFORM_BASE_URL: 'https://tenant.example/v1/',
  PLATFORM_V2_BASE_URL: 'https://tenant.example/v2/',
  PLATFORM_GRAPHQL_URL: 'https://tenant.example/v1/graphql/',
};
const SECRET = 'x'.repeat(32);

function problems(env: Record<string, string>): string[] {
  try {
    parseConfig({ ...PROD, ...env });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  return [];
}

describe('production mode: TLS to every service off this machine', () => {
  it('a remote Temporal without TLS is refused, naming TEMPORAL_TLS; with it, or on loopback, it is accepted', () => {
    expect(problems({ TEMPORAL_ADDRESS: 'temporal.internal:7233' })).toEqual([expect.stringMatching(/^TEMPORAL_TLS: must be true .*temporal\.internal:7233/)]);
    expect(problems({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_TLS: 'true' })).toEqual([]);
    expect(problems({ TEMPORAL_ADDRESS: '127.0.0.1:7233' })).toEqual([]);
    expect(problems({ TEMPORAL_ADDRESS: '[::1]:7233' })).toEqual([]);
    expect(problems({ TEMPORAL_ADDRESS: '10.0.0.5:7233' })).toHaveLength(1);
  });

  it('a remote Postgres without sslmode is refused, naming DATABASE_URL and never its password', () => {
    const [p] = problems({ DATABASE_URL: 'postgres://app:hunter2@db.internal:5432/ledger' });
    expect(p).toMatch(/^DATABASE_URL: add sslmode=verify-full .*db\.internal/);
    expect(p).not.toContain('hunter2');
    expect(problems({ DATABASE_URL: 'postgres://app:pw@db.internal:5432/ledger?sslmode=disable' })).toHaveLength(1);
    expect(problems({ DATABASE_URL: 'postgres://app:pw@db.internal:5432/ledger?sslmode=prefer' })).toHaveLength(1);
    for (const ok of ['?sslmode=verify-full', '?sslmode=require', '?ssl=true'])
      expect(problems({ DATABASE_URL: `postgres://app:pw@db.internal/l${ok}` })).toEqual([]);
    expect(problems({ DATABASE_URL: 'postgres://app:pw@localhost:5432/ledger' })).toEqual([]);
    // A Unix socket never leaves the machine.
    expect(problems({ DATABASE_URL: 'postgres://app@/ledger?host=/var/run/postgresql' })).toEqual([]);
  });

  it('a remote S3 or SQS endpoint over http:// is refused, naming it', () => {
    expect(problems({ S3_ENDPOINT: 'http://minio.internal:9000' })).toEqual([
      expect.stringMatching(/^S3_ENDPOINT="http:\/\/minio\.internal:9000": must be an https:\/\/ URL/),
    ]);
    expect(problems({ SQS_ENDPOINT: 'http://sqs.internal' })).toEqual([expect.stringMatching(/^SQS_ENDPOINT=.*https/)]);
    expect(problems({ S3_ENDPOINT: 'https://minio.internal:9000', SQS_ENDPOINT: 'http://127.0.0.1:4566' })).toEqual([]);
  });
});

describe('production mode: credentials', () => {
  it('no S3 keys: the AWS default credential chain (no local/local); one key alone is refused, naming the other', () => {
    const cfg = parseConfig(PROD);
    expect(cfg.S3_ACCESS_KEY_ID).toBeUndefined();
    expect(cfg.S3_SECRET_ACCESS_KEY).toBeUndefined();
    expect(problems({ S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' })).toEqual([expect.stringMatching(/^S3_SECRET_ACCESS_KEY: set both S3 keys, or neither/)]);
    expect(problems({ S3_SECRET_ACCESS_KEY: 'secret' })).toEqual([expect.stringMatching(/^S3_ACCESS_KEY_ID: set both/)]);
    // Development keeps the local stand-in's keys.
    expect(parseConfig({})).toMatchObject({ S3_ACCESS_KEY_ID: 'local', S3_SECRET_ACCESS_KEY: 'local' });
  });

  it('a shared secret under 32 characters is refused, naming it and never showing it', () => {
    for (const name of ['EVENTS_WEBHOOK_API_KEY', 'EVENTS_WEBHOOK_SECRET', 'CODEC_AUTH_TOKEN']) {
      const short = 's3cr3t-but-only-31-characters!!';
      expect(short).toHaveLength(31);
      const found = problems({ [name]: short });
      expect(found).toEqual([`${name}=(hidden): at least 32 characters in production mode (31 given; e.g. \`openssl rand -hex 32\`)`]);
      expect(problems({ [name]: SECRET })).toEqual([]);
    }
  });
});

describe('config print', () => {
  it('masks a password given as a URL parameter, as it masks one in the authority', () => {
    const cfg = parseConfig({ DATABASE_URL: 'postgres://app@db.internal/ledger?sslmode=require&password=hunter2&sslpassword=k3y' });
    const shown = JSON.stringify(maskedConfig(cfg));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('k3y');
    expect(shown).toContain('password=***');
  });
});

describe('loopback', () => {
  it('is 127/8, ::1 and localhost; nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', 'api.localhost']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '10.0.0.1', 'db', 'localhost.example.com', '::', '128.0.0.1']) expect(isLoopbackHost(h)).toBe(false);
  });

  it('is an address, not a spelling: a remote host mapped into IPv6 is remote, loopback written any way is loopback', () => {
    // How a URL writes them ([::ffff:a00:1]), in full, in hex, and hosts that only start like 127 or ::ffff:.
    const remote = [
      '::ffff:10.0.0.1',
      '[::ffff:a00:1]',
      '0:0:0:0:0:ffff:10.0.0.1',
      '::ffff:0a00:0001',
      '::ffff:128.0.0.1',
      '::ffff:8.8.8.8',
      '::ffff:0:0',
      '::2',
      '::127.0.0.1',
    ];
    for (const h of remote) expect(isLoopbackHost(h), h).toBe(false);
    const loopback = ['::ffff:127.0.0.1', '[::ffff:7f00:1]', '0:0:0:0:0:ffff:127.9.8.7', '0:0:0:0:0:0:0:1', '[0::1]'];
    for (const h of loopback) expect(isLoopbackHost(h), h).toBe(true);
  });

  it('production mode refuses every service at a mapped remote address without TLS, and accepts a mapped loopback one', () => {
    const remote = {
      TEMPORAL_ADDRESS: '[::ffff:10.0.0.1]:7233',
      DATABASE_URL: 'postgres://app:pw@[::ffff:10.0.0.2]:5432/ledger',
      S3_ENDPOINT: 'http://[::ffff:10.0.0.3]:9000',
      SQS_ENDPOINT: 'http://[0:0:0:0:0:ffff:a00:4]:4566',
    };
    expect(problems(remote).map((p) => p.split(/[:=]/)[0])).toEqual(['TEMPORAL_TLS', 'DATABASE_URL', 'S3_ENDPOINT', 'SQS_ENDPOINT']);
    const near = {
      TEMPORAL_ADDRESS: '[::ffff:127.0.0.1]:7233',
      DATABASE_URL: 'postgres://app:pw@[::ffff:7f00:1]:5432/ledger',
      S3_ENDPOINT: 'http://[::ffff:127.0.0.1]:9000',
      SQS_ENDPOINT: 'http://[0:0:0:0:0:0:0:1]:4566',
    };
    expect(problems(near)).toEqual([]);
  });
});

describe('however the address is written', () => {
  it('a Temporal address without a port is read whole: loopback names and bare IPv6 loopback pass, a bare remote IPv6 address is refused', () => {
    for (const near of ['localhost', '127.0.0.1', '::1', '0:0:0:0:0:0:0:1', '[::1]']) expect(problems({ TEMPORAL_ADDRESS: near }), near).toEqual([]);
    for (const far of ['fd00::5', '::ffff:10.0.0.1', 'temporal.internal', '10.0.0.5'])
      expect(problems({ TEMPORAL_ADDRESS: far }), far).toEqual([expect.stringMatching(/^TEMPORAL_TLS: must be true/)]);
  });

  it('a host that only looks like loopback once its brackets are moved is remote', () => {
    for (const h of ['1[27.0.0.1', '[::1]]', '127.0.0.]1]', ':1]']) expect(isLoopbackHost(h), h).toBe(false);
    expect(problems({ TEMPORAL_ADDRESS: 'remote.example[::1]:7233' })).toHaveLength(1);
    expect(problems({ DATABASE_URL: 'postgres://app:pw@1[27.0.0.1:5432/ledger' })).toHaveLength(1);
    expect(problems({ DATABASE_URL: 'postgres://app:pw@127.0.0.]1]/ledger' })).toHaveLength(1);
  });

  it("a Postgres URL with no host is node-postgres's default, localhost; with no user, the host is still read", () => {
    expect(postgresTarget('postgres:///ledger')).toEqual({ host: 'localhost', tls: false });
    expect(problems({ DATABASE_URL: 'postgres://app@/ledger' })).toEqual([]);
    expect(postgresTarget('postgresql://db.internal:5432/ledger')).toEqual({ host: 'db.internal', tls: false });
    expect(postgresTarget('postgres://db.internal/ledger')).toEqual({ host: 'db.internal', tls: false });
    expect(problems({ DATABASE_URL: 'postgres://localhost:5432/ledger' })).toEqual([]);
    expect(problems({ DATABASE_URL: 'postgres://db.internal/ledger' })).toEqual([expect.stringMatching(/^DATABASE_URL: .*host "db\.internal"/)]);
  });

  it('every sslmode that asks for TLS passes: require, verify-ca, verify-full', () => {
    for (const mode of ['require', 'verify-ca', 'verify-full'])
      expect(postgresTarget(`postgres://u@db.internal/l?sslmode=${mode}`), mode).toEqual({ host: 'db.internal', tls: true });
  });

  it('an endpoint that is not a URL is refused, naming it', () => {
    const base = { PRIVATE_NETWORK_HOSTS: [], TEMPORAL_ADDRESS: 'localhost:7233', TEMPORAL_TLS: false };
    expect(perimeterProblems({ ...base, S3_ENDPOINT: 'minio.internal 9000', SQS_ENDPOINT: 'https://sqs.internal' })).toEqual([
      'S3_ENDPOINT="minio.internal 9000": not a URL',
    ]);
  });
});

describe('a private network the operator names', () => {
  it('PRIVATE_NETWORK_HOSTS exempts those hosts only (the compose network), and the refusal says so', () => {
    const env = { TEMPORAL_ADDRESS: 'temporal:7233', DATABASE_URL: 'postgres://a:b@postgres:5432/x', S3_ENDPOINT: 'http://minio:9000' };
    expect(problems(env)).toHaveLength(3);
    expect(problems(env)[0]).toContain('PRIVATE_NETWORK_HOSTS');
    expect(problems({ ...env, PRIVATE_NETWORK_HOSTS: 'postgres, Temporal' })).toEqual([expect.stringMatching(/^S3_ENDPOINT=/)]);
  });
});

describe("a Postgres URL's host", () => {
  it('is read past a password holding characters a URL parser refuses', () => {
    expect(postgresTarget('postgres://u:p?w/d@x@db.internal:5432/l?sslmode=require')).toEqual({ host: 'db.internal', tls: true });
    expect(postgresTarget('postgresql://u@[fd00::1]:5432/l')).toEqual({ host: 'fd00::1', tls: false });
    expect(postgresTarget('postgres://u@/l?host=%2Fvar%2Frun%2Fpostgresql')).toEqual({ host: '/var/run/postgresql', tls: false });
    expect(postgresTarget('postgres://u:p@db/l?ssl=1')).toEqual({ host: 'db', tls: true });
  });
});
