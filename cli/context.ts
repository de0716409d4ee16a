import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { createPool, type Pool } from '../clients/db';
import { loadEnv, maskUrlPassword, parseConfig, sandboxPlatformUrls, type Config } from '../config';
import { devSecretsSchema, type DevSecrets } from '../config/dev-secrets';
import { readStackInfo, type StackInfo } from '../config/dev-stack-info';
import { unreachableError, usageError } from './errors';
import { ROOT } from './root';
import { loadCodecKeys } from '../codec/keys';
import { useLedgerKeys } from '../ledger/sealing';

export { ROOT };

type Env = Record<string, string | undefined>;

/** Where the dev stack keeps its files; relative DATA_DIRs are read from the repository root, as the stack does. */
export function dataDirOf(env: Env): string {
  return path.resolve(ROOT, env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : '.data');
}

const isMasked = (url: string) => url.includes(':***@');

/**
 * The environment a command runs with: what the operator set wins; anything unset is taken from a
 * running dev stack (its endpoints in stack.json, its generated secrets in secrets.json). stack.json
 * masks a database URL the operator gave (they have it in their own environment); the embedded
 * Postgres's URL is written in full.
 */
export function mergeStackEnv(env: Env, stack: StackInfo | undefined, secrets: Partial<DevSecrets> | undefined): Env {
  const fromStack: Env = {};
  if (stack) {
    Object.assign(fromStack, {
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_NAMESPACE: stack.temporalNamespace,
      TEMPORAL_UI_URL: stack.temporalUiUrl,
      S3_ENDPOINT: stack.s3Endpoint,
      SQS_ENDPOINT: stack.sqsEndpoint,
      EVENTS_QUEUE_URL: stack.eventsQueueUrl,
      PLATFORM_BUCKET: stack.platformBucket,
      ...sandboxPlatformUrls(stack.sandboxUrl),
      ...(isMasked(stack.databaseUrl) ? {} : { DATABASE_URL: stack.databaseUrl }),
    });
  }
  const merged: Env = { ...env };
  for (const source of [fromStack, secrets ?? {}]) {
    for (const [k, v] of Object.entries(source)) {
      if ((merged[k] === undefined || merged[k] === '') && typeof v === 'string' && v !== '') merged[k] = v;
    }
  }
  return merged;
}

function readJson(file: string): unknown {
  try {
    return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
  } catch {
    return undefined;
  }
}

export interface CliContext {
  cfg: Config;
  env: Env;
  dataDir: string;
  /** The running dev stack this command talks to, when there is one and no override. */
  stack?: StackInfo;
}

/** Config for a command: environment + .env, completed from a running dev stack. Throws ConfigError. */
export function loadCliContext(base: Env = loadEnv()): CliContext {
  const dataDir = dataDirOf(base);
  let stack: StackInfo | undefined;
  try {
    stack = readStackInfo(dataDir);
  } catch {
    stack = undefined; // a half-written or stale stack.json must not break commands that do not need it
  }
  const secrets = devSecretsSchema.partial().safeParse(readJson(path.join(dataDir, 'secrets.json')));
  // Only a running stack lends its secrets: a leftover dev data directory must not configure anything else.
  const env = stack ? mergeStackEnv(base, stack, secrets.success ? secrets.data : undefined) : { ...base };
  return { cfg: parseConfig(env), env, dataDir, stack };
}

/** Lazily opened connections, closed together when the command ends. */
export class Services {
  private client?: Promise<Client>;
  private clientSettled = false;
  private pool?: Promise<Pool>;
  constructor(readonly cfg: Config) {}

  temporal(): Promise<Client> {
    // Loaded on first use: the Temporal client is most of a command's start, and ledger-only commands never need it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { connectClient } = require('../clients/temporal') as typeof import('../clients/temporal');
    this.client ??= connectClient(this.cfg)
      .catch((e: Error) => {
        throw unreachableError('temporal_unreachable', `cannot reach Temporal at ${this.cfg.TEMPORAL_ADDRESS}: ${firstLine(e.message)}`);
      })
      .finally(() => {
        this.clientSettled = true;
      });
    return this.client;
  }

  db(): Promise<Pool> {
    this.pool ??= (async () => {
      const url = this.cfg.DATABASE_URL;
      if (!url) {
        throw usageError(
          'database_url_missing',
          'DATABASE_URL is not set and no running dev stack provides it (start one with `kraken-migrate dev`, or set DATABASE_URL=postgres://…)',
        );
      }
      // Sealed ledger columns open with the keys this configuration names (a dev stack's included).
      const pool = useLedgerKeys(createPool(url, 4), loadCodecKeys(this.cfg));
      try {
        await pool.query('select 1');
      } catch (e) {
        await pool.end().catch(() => {});
        throw unreachableError('database_unreachable', `cannot reach Postgres at ${maskUrlPassword(url)}: ${firstLine((e as Error).message)}`);
      }
      return pool;
    })();
    return this.pool;
  }

  async close(): Promise<void> {
    // A connection a command stopped waiting for (`run status` past its wait) is closed when it lands, not awaited.
    if (this.client && !this.clientSettled) void this.client.then((c) => c.connection.close()).catch(() => {});
    const client = this.clientSettled ? await this.client?.catch(() => undefined) : undefined;
    await client?.connection.close().catch(() => {});
    const pool = await this.pool?.catch(() => undefined);
    await pool?.end().catch(() => {});
  }
}

/** Runs a command body with its services, always closing them. */
export async function withServices<T>(ctx: CliContext, fn: (s: Services) => Promise<T>): Promise<T> {
  const s = new Services(ctx.cfg);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

export function firstLine(s: string): string {
  return s.split('\n')[0];
}

/** Temporal UI link of a workflow execution (latest run). */
export function workflowUiUrl(cfg: Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_NAMESPACE'>, workflowId: string): string {
  return `${cfg.TEMPORAL_UI_URL.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(cfg.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`;
}

export interface RunAccountViews {
  all: string;
  failed: string;
  running: string;
  differing: string;
}

/**
 * Temporal UI list views of a run's account workflows. Account workflows are not the run's children
 * (the UI shows no relationship), so the run links to them through its search attributes
 * (domain/search-attributes.ts). Run ids are letters, digits, '.', '_' and '-' (cli/run-id.ts):
 * nothing to escape inside the quotes.
 */
export function runAccountViews(cfg: Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_NAMESPACE'>, runId: string, dryRun = false): RunAccountViews {
  const base = `KmRunId = '${runId}' AND KmKind = '${dryRun ? 'dry-run-account' : 'account'}'`;
  const list = (q: string) =>
    `${cfg.TEMPORAL_UI_URL.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(cfg.TEMPORAL_NAMESPACE)}/workflows?query=${encodeURIComponent(q)}`;
  return {
    all: list(base),
    failed: list(`${base} AND ExecutionStatus = 'Failed'`),
    running: list(`${base} AND ExecutionStatus = 'Running'`),
    differing: list(`${base} AND KmOutcome = 'completed_with_differences'`),
  };
}

/** The run workflow's details in the UI (user metadata, rendered as Markdown): links to its accounts. */
export function runDetailsMarkdown(views: RunAccountViews): string {
  return [
    'Accounts of this run:',
    `- [all](${views.all})`,
    `- [failed](${views.failed})`,
    `- [still running](${views.running})`,
    `- [completed with differences](${views.differing})`,
  ].join('\n');
}
