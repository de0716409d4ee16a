import { BlockList, isIP } from 'node:net';

/**
 * What production mode refuses at start-up, beyond the schema (config/index.ts): a non-loopback
 * service reached without TLS (Temporal, Postgres, S3, SQS: credentials and customers' data would
 * cross the network in clear), a shared secret short enough to guess, and half an S3 key pair.
 * Each problem names the option to change. Pure: the inputs are the parsed values.
 */

/** Shared secrets (webhook key or HMAC secret, codec token): at least this long (256 bits of a random hex or base64 string). */
export const MIN_SECRET_LENGTH = 32;

/**
 * 127.0.0.0/8 and ::1, matched by address, not by spelling: Node's BlockList reads an IPv6 address
 * in any of its forms and an IPv4-mapped one (`::ffff:7f00:1`, how a URL writes `::ffff:127.0.0.1`)
 * against the IPv4 rule, so a mapped remote host (`::ffff:10.0.0.1`) is never taken for loopback.
 */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  // A name that is no address is not in the list (test/unit/config/production-perimeter.test.ts).
  // Stryker disable next-line StringLiteral: BlockList reads an IPv6 address given no family ('') as IPv6.
  return LOOPBACK.check(h, isIP(h) === 4 ? 'ipv4' : 'ipv6');
}

/** `host:port` (Temporal's form), `[v6]:port`, or a bare host. */
function hostOfAddress(address: string): string {
  const v6 = /^\[([^\]]+)\]/.exec(address);
  if (v6) return v6[1];
  const i = address.lastIndexOf(':');
  // Stryker disable next-line EqualityOperator: at 0 (`:7233`) the host is empty either way, neither loopback nor a listed name.
  return i > 0 && address.indexOf(':') === i ? address.slice(0, i) : address;
}

const param = (url: string, name: string) => {
  const m = new RegExp(`[?&]${name}=([^&#]*)`).exec(url);
  return m ? decodeURIComponent(m[1]) : undefined;
};

/**
 * A Postgres URL's host and whether it asks for TLS, as node-postgres reads it (`sslmode=require|
 * verify-ca|verify-full`, or `ssl=true|1`). Read by pattern, not `new URL`: a password with
 * characters a URL parser refuses must not hide the host.
 */
export function postgresTarget(url: string): { host: string; tls: boolean } {
  // After the last '@': the password (which may hold '?', '/' or '@' unencoded) is behind it.
  // Stryker disable next-line Regex: replace takes the first match, which is the scheme whenever the URL has one (the schema requires it).
  const rest = url.replace(/^postgres(?:ql)?:\/\//, '');
  const hostAndQuery = rest.slice(rest.lastIndexOf('@') + 1);
  // Stryker disable next-line OptionalChaining,Regex,StringLiteral: the pattern matches every string at its start (perhaps empty), so exec never returns null.
  const authority = /^(\[[^\]]*\]|[^:/?#]*)/.exec(hostAndQuery)?.[1] ?? '';
  const host = param(hostAndQuery, 'host') ?? (authority === '' ? 'localhost' : authority.replace(/^\[|\]$/g, ''));
  const mode = param(hostAndQuery, 'sslmode');
  const ssl = param(hostAndQuery, 'ssl');
  return { host, tls: mode !== undefined ? ['require', 'verify-ca', 'verify-full'].includes(mode) : ssl === 'true' || ssl === '1' };
}

export interface PerimeterInput {
  /** Hosts the operator declares on a private network of the installation's own (PRIVATE_NETWORK_HOSTS). */
  PRIVATE_NETWORK_HOSTS: string[];
  TEMPORAL_ADDRESS: string;
  TEMPORAL_TLS: boolean;
  DATABASE_URL?: string;
  S3_ENDPOINT?: string;
  SQS_ENDPOINT?: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
  EVENTS_WEBHOOK_API_KEY?: string;
  EVENTS_WEBHOOK_SECRET?: string;
  CODEC_AUTH_TOKEN?: string;
}

export function perimeterProblems(cfg: PerimeterInput): string[] {
  const problems: string[] = [];
  const near = (host: string) => isLoopbackHost(host) || cfg.PRIVATE_NETWORK_HOSTS.includes(host.toLowerCase());
  const orPrivate = ' (or name the host in PRIVATE_NETWORK_HOSTS when only this installation can reach it)';
  const temporalHost = hostOfAddress(cfg.TEMPORAL_ADDRESS);
  if (!cfg.TEMPORAL_TLS && !near(temporalHost)) {
    problems.push(
      `TEMPORAL_TLS: must be true in production mode for a Temporal server off this machine (TEMPORAL_ADDRESS=${JSON.stringify(cfg.TEMPORAL_ADDRESS)})${orPrivate}`,
    );
  }
  if (cfg.DATABASE_URL) {
    const { host, tls } = postgresTarget(cfg.DATABASE_URL);
    // A Unix socket (`?host=/var/run/postgresql`) never leaves the machine.
    if (!host.startsWith('/') && !near(host) && !tls) {
      problems.push(
        `DATABASE_URL: add sslmode=verify-full (or require) in production mode for a Postgres off this machine (host ${JSON.stringify(host)})${orPrivate}`,
      );
    }
  }
  for (const name of ['S3_ENDPOINT', 'SQS_ENDPOINT'] as const) {
    const value = cfg[name];
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      problems.push(`${name}=${JSON.stringify(value)}: not a URL`);
      continue;
    }
    if (url.protocol !== 'https:' && !near(url.hostname)) {
      problems.push(`${name}=${JSON.stringify(value)}: must be an https:// URL in production mode for a service off this machine${orPrivate}`);
    }
  }
  if (Boolean(cfg.S3_ACCESS_KEY_ID) !== Boolean(cfg.S3_SECRET_ACCESS_KEY)) {
    problems.push(
      `${cfg.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'}: set both S3 keys, or neither (the AWS default credential chain: instance or task role, AWS_* variables, profile)`,
    );
  }
  for (const name of ['EVENTS_WEBHOOK_API_KEY', 'EVENTS_WEBHOOK_SECRET', 'CODEC_AUTH_TOKEN'] as const) {
    const value = cfg[name];
    if (value !== undefined && value.length < MIN_SECRET_LENGTH) {
      problems.push(`${name}=(hidden): at least ${MIN_SECRET_LENGTH} characters in production mode (${value.length} given; e.g. \`openssl rand -hex 32\`)`);
    }
  }
  return problems;
}
