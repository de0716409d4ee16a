import { PAYLOAD_FILE_NAMED, PAYLOAD_FILE_PATTERN } from '../domain/source-spec';
import { TIMING_DEFAULTS } from '../domain/timing-defaults';
import path from 'node:path';
import fs from 'node:fs';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Config } from '../config';
import { runWorkflowId } from '../domain/workflow-ids';
import { sourceSpecSchema } from '../domain/source-spec';
import { migrationRunInputSchema, type MigrationRunInput, type Selection, type SourceSpecRef } from '../domain/inputs';
import { openPayloadFile, readPayloadLines } from '../schemas/json-lines';
import type { migrationRunWorkflow } from '../workflows/migration-run';
import { KmKind, KmRunId, KmSupplier } from '../domain/search-attributes';
import { runAccountViews, runDetailsMarkdown, workflowUiUrl } from './context';
import { usageError } from './errors';
import { info } from './output';
import { describeDeployment } from '../clients/worker-deployments';
import { newRunId, RUN_ID_PATTERN } from './run-id';

export type RunHandle = WorkflowHandle<typeof migrationRunWorkflow>;

export interface StartedRun {
  runId: string;
  workflowId: string;
  uiUrl: string;
  /** The UI's list of the run's failed accounts. */
  failedAccountsUrl: string;
}

/** `--source postgres|FILE.jsonl` → the run's source spec (file paths made absolute for the workers). */
export function parseSourceOption(value: string | undefined, cwd = process.cwd()): SourceSpecRef {
  if (value === undefined || value === 'postgres') return { kind: 'postgres' };
  const file = path.resolve(cwd, value);
  if (!fs.existsSync(file)) throw usageError('source_not_found', `--source ${value}: no such file (use "postgres" or a .jsonl file)`);
  return { kind: 'file', path: file };
}

/**
 * `--payloads FILE` / `--payloads-table SCHEMA.TABLE` (+ `--documents DIR|s3://bucket/prefix`) → a
 * payload source spec, or undefined when neither is given. An empty file is a usage error. Which options
 * go together is the command's schema's to say (cli/actions/run.ts), or the plan file's (domain/plan-file.ts).
 */
export async function parsePayloadOptions(
  opts: { payloads?: string; payloadsTable?: string; documents?: string },
  cwd = process.cwd(),
): Promise<SourceSpecRef | undefined> {
  if (opts.payloads === undefined && opts.payloadsTable === undefined) return undefined;
  let documents: string | undefined;
  if (opts.documents !== undefined) {
    if (opts.documents.startsWith('s3://')) {
      if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(opts.documents))
        throw usageError('invalid_documents', `--documents ${opts.documents}: expected s3://bucket/prefix`);
      documents = opts.documents.replace(/\/+$/, '');
    } else {
      documents = path.resolve(cwd, opts.documents);
      if (!fs.statSync(documents, { throwIfNoEntry: false })?.isDirectory())
        throw usageError('documents_not_found', `--documents ${opts.documents}: no such folder`);
    }
  }
  if (opts.payloadsTable !== undefined) {
    const spec = sourceSpecSchema.safeParse({ kind: 'payloads-table', table: opts.payloadsTable, documents });
    if (!spec.success) throw usageError('invalid_payloads_table', `--payloads-table ${opts.payloadsTable}: expected schema.table`);
    return spec.data;
  }
  const file = path.resolve(cwd, opts.payloads!);
  if (!PAYLOAD_FILE_PATTERN.test(file))
    throw usageError('invalid_payloads_file', `--payloads ${opts.payloads}: expected ${PAYLOAD_FILE_NAMED} (one EnergyAccount a line)`);
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw usageError('payloads_not_found', `--payloads ${opts.payloads}: no such file`);
  if (!(await hasPayloadLine(file))) throw usageError('empty_payloads_file', `--payloads ${opts.payloads}: the file holds no payload (every line is blank)`);
  return { kind: 'payloads', path: file, documents };
}

/** True once a non-blank line is seen (a gzipped file is decompressed only that far). */
async function hasPayloadLine(file: string): Promise<boolean> {
  const input = openPayloadFile(file);
  try {
    for await (const _ of readPayloadLines(input)) return true;
    return false;
  } finally {
    input.destroy();
  }
}

/** `--limit` / `--accounts` → the run's selection (one or the other: the command's schema or the plan file's says so). */
export function parseSelectionOptions(opts: { limit?: number; accounts?: string }, cwd = process.cwd()): Selection {
  if (opts.accounts !== undefined) {
    const file = path.resolve(cwd, opts.accounts);
    if (!fs.existsSync(file)) throw usageError('accounts_file_not_found', `--accounts ${opts.accounts}: no such file`);
    return { kind: 'list', path: file };
  }
  return opts.limit !== undefined ? { kind: 'all', limit: opts.limit } : { kind: 'all' };
}

/** Validates the input with the workflow's own schema, then starts the run workflow. */
export async function startRun(client: Client, cfg: Config, input: Omit<MigrationRunInput, 'runId' | 'timings'> & { runId?: string }): Promise<StartedRun> {
  const runId = input.runId ?? newRunId();
  if (!RUN_ID_PATTERN.test(runId)) throw usageError('invalid_run_id', `--run-id ${JSON.stringify(runId)}: letters, digits, '.', '_' and '-' only`);
  const parsed = migrationRunInputSchema.safeParse({
    ...input,
    runId,
    timings: {
      eventWaitSeconds: cfg.OUTCOME_EVENT_WAIT_SECONDS,
      pollMaxSeconds: cfg.OUTCOME_POLL_MAX_SECONDS,
      supplierRecheckSeconds: TIMING_DEFAULTS.supplierRecheckSeconds,
      supplyPollMinSeconds: cfg.SUPPLY_POLL_MIN_SECONDS,
      supplyPollMaxSeconds: cfg.SUPPLY_POLL_MAX_SECONDS,
    },
  });
  if (!parsed.success) {
    throw usageError('invalid_run_input', parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  }
  const args = parsed.data;
  const workflowId = runWorkflowId(runId);
  const views = runAccountViews(cfg, runId, args.dryRun);
  try {
    await client.workflow.start<typeof migrationRunWorkflow>('migrationRunWorkflow', {
      workflowId,
      taskQueue: cfg.TEMPORAL_TASK_QUEUE,
      args: [args],
      typedSearchAttributes: [
        { key: KmKind, value: args.dryRun ? 'dry-run' : 'run' },
        { key: KmRunId, value: runId },
        { key: KmSupplier, value: args.supplierCode },
      ],
      staticSummary: `Migration run ${runId} · ${args.supplierCode}${args.dryRun ? ' · dry run' : ''}`,
      staticDetails: runDetailsMarkdown(views),
    });
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) throw usageError('run_exists', `run ${runId} already exists: choose another --run-id`);
    throw e;
  }
  // Worker Versioning: with no current version the server holds the run's tasks (every worker is versioned).
  const deployment = await describeDeployment(client, cfg.KRAKEN_DEPLOYMENT_NAME).catch(() => undefined);
  if (!deployment?.currentBuildId) {
    const name = cfg.KRAKEN_DEPLOYMENT_NAME;
    info(
      `warning: worker deployment ${name} has no current version: run ${runId} waits until one is set (temporal worker deployment set-current-version --deployment-name ${name} --build-id <build id> --yes; kraken-migrate workers lists them)`,
    );
  }
  return { runId, workflowId, uiUrl: workflowUiUrl(cfg, workflowId), failedAccountsUrl: views.failed };
}

export function runHandle(client: Client, runId: string): RunHandle {
  return client.workflow.getHandle<typeof migrationRunWorkflow>(runWorkflowId(runId));
}

/** Describes the run's workflow; an unknown run id is a usage error. */
export async function describeRun(client: Client, runId: string) {
  try {
    return await runHandle(client, runId).describe();
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw usageError('run_not_found', `no run ${runId} (workflow ${runWorkflowId(runId)}) in this Temporal namespace`);
    throw e;
  }
}

export { withTimeout } from './with-timeout';
