import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { stringify } from 'yaml';
import { maskUrlPassword } from '../../config';
import { ALL_SEARCH_ATTRIBUTES } from '../../domain/search-attributes';
import { freePort, startProcess, waitForPort, type ManagedProcess } from './child-process';
import type { ServerToolPaths } from './temporal-server-build';
import { FAIRNESS_DYNAMIC_CONFIG, type TemporalDevServer } from './temporal-server';

const run = promisify(execFile);

/** Temporal's two databases on the stack's Postgres (the names docker-compose.yml uses too). */
export const TEMPORAL_DATABASES = { store: 'temporal', visibility: 'temporal_visibility' } as const;
/** The SQL tool's embedded schemas for each database (server v1.32.0, PostgreSQL 12+). */
export const EMBEDDED_SCHEMA = { store: 'postgresql/v12/temporal', visibility: 'postgresql/v12/visibility' } as const;

export interface FullServerOptions {
  tools: ServerToolPaths;
  /** Any database URL of the Postgres server Temporal should use; host and credentials are taken from it. */
  postgresUrl: string;
  port: number;
  uiPort: number;
  /** Where the generated server and UI configuration live. */
  dir: string;
  logDir: string;
  namespace: string;
  historyShards: number;
  codecEndpoint?: string;
  log?: (line: string) => void;
}

/**
 * The production shape on one machine: the real Temporal server (frontend, history, matching and
 * worker services in one process) on Postgres with SQL visibility, its schemas set up and upgraded
 * by temporal-sql-tool, the project's namespace and search attributes registered through the
 * API, and the Web UI server pointed at it with the codec endpoint.
 */
export async function startTemporalFullServer(opts: FullServerOptions): Promise<TemporalDevServer> {
  const log = opts.log ?? (() => {});
  const db = new URL(opts.postgresUrl);
  await ensureDatabases(opts.postgresUrl, Object.values(TEMPORAL_DATABASES));
  for (const key of ['store', 'visibility'] as const) {
    log(`temporal-sql-tool: setting up and upgrading ${TEMPORAL_DATABASES[key]}`);
    await setUpSchema(opts.tools.sqlTool, db, TEMPORAL_DATABASES[key], EMBEDDED_SCHEMA[key], opts.logDir);
  }

  const ports = await internalPorts([opts.port, opts.uiPort]);
  const configDir = path.join(opts.dir, 'config');
  fs.mkdirSync(path.join(configDir, 'dynamicconfig'), { recursive: true });
  fs.writeFileSync(path.join(configDir, 'dynamicconfig', 'server.yaml'), stringify(dynamicConfig()));
  fs.writeFileSync(path.join(configDir, 'server.yaml'), stringify(serverConfig(opts, db, ports, configDir)), { mode: 0o600 });
  const logFile = path.join(opts.logDir, 'temporal.log');
  const procs: ManagedProcess[] = [];
  const stop = async () => {
    for (const p of procs.reverse()) await p.stop('SIGTERM', 20_000);
  };
  try {
    const server = startProcess({
      name: 'temporal server',
      command: opts.tools.server,
      args: ['--root', opts.dir, '--config', 'config', '--env', 'server', '--allow-no-auth', 'start'],
      logFile,
    });
    procs.push(server);
    await waitForPort(opts.port, { timeoutMs: 180_000, proc: server, logFile });
    const address = `127.0.0.1:${opts.port}`;
    log(`registering namespace ${opts.namespace} and the search attributes`);
    await registerNamespace(address, opts.namespace, server, logFile);

    fs.writeFileSync(path.join(configDir, 'ui.yaml'), stringify(uiConfig(opts)));
    const uiLog = path.join(opts.logDir, 'temporal-ui.log');
    const ui = startProcess({
      name: 'temporal ui server',
      command: opts.tools.uiServer,
      args: ['--root', opts.dir, '--config', 'config', '--env', 'ui', 'start'],
      logFile: uiLog,
    });
    procs.push(ui);
    await waitForPort(opts.uiPort, { timeoutMs: 60_000, proc: ui, logFile: uiLog });
    return { address, uiUrl: `http://127.0.0.1:${opts.uiPort}`, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function ensureDatabases(url: string, names: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const name of names) {
      const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount === 0) await client.query(`create database ${name}`);
    }
  } finally {
    await client.end();
  }
}

/** setup-schema -v 0.0 (version tables; a no-op on a set-up database), then update-schema to the latest. */
async function setUpSchema(tool: string, db: URL, database: string, schemaName: string, logDir: string): Promise<void> {
  const common = [
    '--plugin',
    'postgres12',
    '--endpoint',
    db.hostname,
    '--port',
    db.port || '5432',
    '--user',
    decodeURIComponent(db.username),
    '--database',
    database,
  ];
  // The password goes through the environment, not argv (argv is visible to every local user).
  const env = { ...process.env, SQL_PASSWORD: decodeURIComponent(db.password) };
  const logFile = path.join(logDir, 'temporal-sql-tool.log');
  for (const args of [
    ['setup-schema', '-v', '0.0'],
    ['update-schema', '--schema-name', schemaName],
  ]) {
    try {
      const { stdout, stderr } = await run(tool, [...common, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
      fs.appendFileSync(logFile, stdout + stderr);
    } catch (e) {
      const out = e as { stdout?: string; stderr?: string };
      fs.appendFileSync(logFile, `${out.stdout ?? ''}${out.stderr ?? ''}`);
      throw Object.assign(new Error(`temporal-sql-tool ${args[0]} on ${database} (${maskUrlPassword(db.href)}) failed; see ${logFile}`), {
        code: 'temporal_schema_failed',
      });
    }
  }
}

type InternalPorts = Awaited<ReturnType<typeof internalPorts>>;
/**
 * The services' own gRPC, HTTP and membership ports: drawn by the stack's one `freePort` (so never
 * a port it has handed out to another process of the stack, nor one a client socket may take), at
 * or below 32767 (the membership table stores ports as smallint), and never the frontend's or the
 * UI's own port, which are not bound yet when these are drawn.
 */
async function internalPorts(reserved: readonly number[]) {
  const p = async () => {
    for (;;) {
      const port = await freePort(32_767);
      if (!reserved.includes(port)) return port;
    }
  };
  return {
    frontendHttp: await p(),
    frontendMembership: await p(),
    history: await p(),
    historyMembership: await p(),
    matching: await p(),
    matchingMembership: await p(),
    worker: await p(),
    workerMembership: await p(),
  };
}

function serverConfig(opts: FullServerOptions, db: URL, ports: InternalPorts, configDir: string) {
  const sql = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${db.hostname}:${db.port || '5432'}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(db.username),
      password: decodeURIComponent(db.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const svc = (grpcPort: number, membershipPort: number, extra: Record<string, number> = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: opts.historyShards,
      datastores: { default: sql(TEMPORAL_DATABASES.store, 40), visibility: sql(TEMPORAL_DATABASES.visibility, 10) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: svc(opts.port, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: svc(ports.history, ports.historyMembership),
      matching: svc(ports.matching, ports.matchingMembership),
      worker: svc(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${opts.port}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: path.join(configDir, 'dynamicconfig', 'server.yaml'), pollInterval: '10s' },
  };
}

/** Dynamic config: the limits the load needs (as the dev-server flags of temporal-server.ts). */
export function dynamicConfig() {
  const v = (value: unknown) => [{ value, constraints: {} }];
  return {
    'frontend.rps': v(5000),
    'frontend.namespaceRPS': v(5000),
    'frontend.namespaceRPS.visibility': v(500),
    'history.shardIOConcurrency': v(4),
    'limit.maxIDLength': v(255),
    // Search attributes registered a moment ago are seen at once (the UI filters, the CLI's queries).
    'system.forceSearchAttributesCacheRefreshOnRead': v(true),
    ...Object.fromEntries(Object.entries(FAIRNESS_DYNAMIC_CONFIG).map(([k, value]) => [k, v(value)])),
  };
}

function uiConfig(opts: FullServerOptions) {
  const uiUrl = `http://127.0.0.1:${opts.uiPort}`;
  return {
    temporalGrpcAddress: `127.0.0.1:${opts.port}`,
    host: '127.0.0.1',
    port: opts.uiPort,
    publicPath: '',
    enableUi: true,
    defaultNamespace: opts.namespace,
    notifyOnNewVersion: false,
    refreshInterval: '0s',
    cors: { cookieInsecure: true, allowOrigins: [uiUrl], unsafeAllowAllOrigins: false },
    codec: { endpoint: opts.codecEndpoint ?? '', passAccessToken: false, includeCredentials: false },
    forwardHeaders: [],
    hideLogs: true,
  };
}

/**
 * Registers the namespace (3-day retention) and the project's search attributes, then waits until
 * a visibility query on them answers: by then frontend, history and visibility all know both.
 */
async function registerNamespace(address: string, namespace: string, server: ManagedProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  const connection = await retry(() => Connection.connect({ address }), deadline, server, logFile);
  try {
    const svc = connection.workflowService;
    await retry(
      async () => {
        try {
          await svc.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') });
        } catch (e) {
          if ((e as { code?: number }).code !== 6) throw e; // 6 = ALREADY_EXISTS: a restart of the stack
        }
      },
      deadline,
      server,
      logFile,
    );
    await retry(() => svc.describeNamespace({ namespace }), deadline, server, logFile);
    const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    const wanted: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
    for (const k of ALL_SEARCH_ATTRIBUTES) {
      if (k.type !== SearchAttributeType.KEYWORD) throw new Error(`search attribute ${k.name}: only Keyword attributes are registered here`);
      wanted[k.name] = keyword;
    }
    await retry(
      async () => {
        const have = await connection.operatorService.listSearchAttributes({ namespace });
        const missing = Object.fromEntries(Object.entries(wanted).filter(([name]) => !(name in (have.customAttributes ?? {}))));
        if (Object.keys(missing).length > 0) await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
      },
      deadline,
      server,
      logFile,
    );
    const query = ALL_SEARCH_ATTRIBUTES.map((k) => `${k.name} = 'probe'`).join(' AND ');
    await retry(() => svc.countWorkflowExecutions({ namespace, query }), deadline, server, logFile);
  } finally {
    await connection.close();
  }
}

async function retry<T>(fn: () => Promise<T>, deadline: number, server: ManagedProcess, logFile: string): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (server.child.exitCode !== null) throw new Error(`the Temporal server exited while starting; see ${logFile}`, { cause: e });
      if (Date.now() > deadline)
        throw Object.assign(new Error(`the Temporal server did not become ready: ${(e as Error).message}`, { cause: e }), { code: 'temporal_unready' });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
