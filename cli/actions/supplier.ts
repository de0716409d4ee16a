// What `kraken-migrate supplier …` does. cli/commands/supplier.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import os from 'node:os';
import { optionsSchema, parseOptions } from '../option-schema';
import { jsonOnly, SET_SUPPLIER_STATUS_OPTIONS } from '../options/commands';
import type { Client } from '@temporalio/client';
import { createLedger, supplierRows } from '../../ledger';
import type { SupplierStatus } from '../../domain/supplier-status';
import { supplierStatusSignal } from '../../domain/messages';
import { loadCliContext, withServices, type CliContext } from '../context';
import { CliError, EXIT, usageError } from '../errors';
import { printJson, println, table } from '../output';

/** Who the ledger records as having changed a supplier. */
const who = () => `cli:${os.userInfo().username}`;

const quote = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Visibility query for the runs of a supplier that are still going. */
export function runningRunsQuery(supplierCode: string): string {
  return `KmKind = 'run' AND KmSupplier = ${quote(supplierCode)} AND ExecutionStatus = 'Running'`;
}

async function runningRuns(client: Client, supplierCode: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: runningRunsQuery(supplierCode) })) ids.push(wf.workflowId);
  return ids;
}

/** Rehearsals: changes the supplier's status on the platform sandbox too (never a real tenant). */
async function setSandboxStatus(ctx: CliContext, code: string, status: SupplierStatus): Promise<void> {
  const base = ctx.stack?.sandboxUrl;
  if (!base) throw usageError('no_sandbox', '--sandbox needs a running dev stack (its sandbox URL is read from <DATA_DIR>/stack.json)');
  const url = `${base.replace(/\/+$/, '')}/admin/suppliers/${encodeURIComponent(code)}`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status }) });
  } catch (e) {
    throw new CliError('sandbox_unreachable', `cannot reach the platform sandbox at ${base}: ${(e as Error).message}`, EXIT.unreachable);
  }
  if (!res.ok) throw new CliError('sandbox_refused', `sandbox answered ${res.status} to PUT ${url}: ${(await res.text()).slice(0, 200)}`, EXIT.failures);
}

/** `supplier list`, `show` and `set-root`'s options; `set-status`'s. */
const jsonOptionSchema = optionsSchema(jsonOnly());
const setStatusOptionsSchema = optionsSchema(SET_SUPPLIER_STATUS_OPTIONS);

export async function listSuppliersAction(options: unknown): Promise<void> {
  const opts = parseOptions(jsonOptionSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const rows = await supplierRows(await s.db());
    if (opts.json) return printJson(rows);
    println(
      table(
        ['SUPPLIER', 'STATUS', 'DOCUMENT ROOT', 'UPDATED', 'BY', 'REASON'],
        rows.map((r) => [r.supplierCode, r.status, r.documentRoot, r.updatedAt.slice(0, 19), r.updatedBy, r.reason ?? '']),
      ),
    );
  });
}

export async function showSupplierAction(code: string, options: unknown): Promise<void> {
  const opts = parseOptions(jsonOptionSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const [row] = await supplierRows(await s.db(), code);
    if (!row) throw usageError('supplier_not_found', `no supplier ${code} in the ledger (set one with: kraken-migrate supplier set-root ${code} ROOT)`);
    const runs = await runningRuns(await s.temporal(), code);
    if (opts.json) return printJson({ ...row, runningRuns: runs });
    println(`${row.supplierCode}: ${row.status}${row.reason ? ` (${row.reason})` : ''}`);
    println(`document root: ${row.documentRoot || '(not set)'}`);
    println(`updated ${row.updatedAt} by ${row.updatedBy}`);
    println(`running runs: ${runs.length ? runs.join(', ') : 'none'}`);
  });
}

export async function setSupplierStatusAction(code: string, status: SupplierStatus, options: unknown): Promise<void> {
  const opts = parseOptions(setStatusOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    if (opts.sandbox) await setSandboxStatus(ctx, code, status);
    await createLedger(await s.db()).setSupplier(code, { status, reason: opts.reason, updatedBy: who() });
    const client = await s.temporal();
    const runs = await runningRuns(client, code);
    const signalled: string[] = [];
    for (const id of runs) {
      try {
        await client.workflow.getHandle(id).signal(supplierStatusSignal, { status });
        signalled.push(id);
      } catch {
        // Closed between the query and the signal: nothing to wake.
      }
    }
    if (opts.json) return printJson({ supplierCode: code, status, signalledRuns: signalled });
    println(
      `${code} is now ${status}${opts.sandbox ? ' (ledger and sandbox)' : ''}; signalled ${signalled.length} running run(s)${signalled.length ? `: ${signalled.join(', ')}` : ''}.`,
    );
  });
}

export async function setSupplierRootAction(code: string, root: string, options: unknown): Promise<void> {
  const opts = parseOptions(jsonOptionSchema, options);
  if (root.trim() === '' || root.startsWith('/') || root.includes('..'))
    throw usageError('invalid_document_root', `document root ${JSON.stringify(root)}: expected a relative path without '..'`);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    await createLedger(await s.db()).setSupplier(code, { documentRoot: root, updatedBy: who() });
    const [row] = await supplierRows(await s.db(), code);
    if (opts.json) return printJson(row);
    println(`${code}: document root ${row.documentRoot}, status ${row.status}`);
  });
}
