import fs from 'node:fs';
import os from 'node:os';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import pino from 'pino';
import type { Config } from '../config';
import { createDataConverter } from '../codec/data-converter';
import { createLogger } from '../logging/logger';

/**
 * Connection settings for a local dev server, a self-hosted cluster (TLS / mTLS) or Temporal Cloud
 * (mTLS or API key), all from configuration.
 */
export function temporalConnectionOptions(cfg: Config): Pick<ConnectionOptions, 'address' | 'tls' | 'apiKey'> {
  const mtls = cfg.TEMPORAL_TLS_CERT_PATH && cfg.TEMPORAL_TLS_KEY_PATH;
  const tlsOn = cfg.TEMPORAL_TLS || Boolean(mtls) || Boolean(cfg.TEMPORAL_API_KEY);
  return {
    address: cfg.TEMPORAL_ADDRESS,
    ...(tlsOn
      ? {
          tls: {
            ...(cfg.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: cfg.TEMPORAL_TLS_SERVER_NAME } : {}),
            ...(cfg.TEMPORAL_TLS_CA_PATH ? { serverRootCACertificate: fs.readFileSync(cfg.TEMPORAL_TLS_CA_PATH) } : {}),
            ...(mtls ? { clientCertPair: { crt: fs.readFileSync(cfg.TEMPORAL_TLS_CERT_PATH!), key: fs.readFileSync(cfg.TEMPORAL_TLS_KEY_PATH!) } } : {}),
          },
        }
      : {}),
    ...(cfg.TEMPORAL_API_KEY ? { apiKey: cfg.TEMPORAL_API_KEY } : {}),
  };
}

let stderrLogger: pino.Logger | undefined;
/**
 * Where the codec's warnings go (a dev key in use) when the caller has no logger of its own: stderr,
 * because a command's stdout is its answer (`run status --json | jq` must parse), created late.
 */
export const codecWarnings = {
  warn: (obj: object, msg: string) => {
    stderrLogger ??= createLogger('kraken-migrate', { destination: pino.destination({ fd: 2, sync: true }) }).child({ component: 'codec' });
    stderrLogger.warn(obj, msg);
  },
};

export async function connectClient(cfg: Config): Promise<Client> {
  const connection = await Connection.connect({ ...temporalConnectionOptions(cfg), connectTimeout: '10s' });
  return new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE, dataConverter: createDataConverter(cfg, { logger: codecWarnings }) });
}

/**
 * A worker's identity, in Temporal and in the ledger: unique per process and per host (in a
 * container every process is pid 1; the hostname is the container's).
 */
export function workerIdentity(): string {
  return `kraken-migrate-worker@${os.hostname()}:${process.pid}`;
}
