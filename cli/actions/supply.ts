// `run supply` and `run resend-registration`: the switch's meter points as the ledger last read them
// from the tenant, and the operator's resend of refused switches (workflows/supply.ts).
import { optionsSchema, parseOptions } from '../option-schema';
import { RESEND_REGISTRATION_OPTIONS, SUPPLY_OPTIONS } from '../options/run';
import { loadCliContext, withServices } from '../context';
import { EXIT, usageError } from '../errors';
import { createSupplyLedger, type SupplyPointRow } from '../../ledger/supply';
import { runRow } from '../../ledger/run-queries';
import { info, printJson, println, table } from '../output';
import { endedRefused, supplyFunnel } from '../../domain/supply';
import { resendRegistrationSignal } from '../../domain/messages';
import { supplyWorkflowId } from '../../domain/workflow-ids';

const supplyOptionsSchema = optionsSchema(SUPPLY_OPTIONS);

/** One point of the view: `final` when the tool has left it (a final status, or a refused or held flow for the operator). */
export function pointView(p: SupplyPointRow) {
  return {
    account: p.externalAccountNumber,
    accountNumber: p.accountNumber,
    mpxn: p.mpxn,
    status: p.status,
    final: p.outcome !== null,
    outcome: p.outcome,
    since: p.statusSince,
    detail: p.flowRefused ? p.flowErrorDetail : null,
    flowsSent: p.flowsSent,
  };
}

export async function supplyAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(supplyOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    if (!(await runRow(pool, runId))) throw usageError('run_not_found', `no run ${runId} in the ledger`);
    const meterPoints = (await createSupplyLedger(pool).runPoints(runId)).map(pointView);
    const funnel = supplyFunnel(meterPoints);
    if (opts.json) return printJson({ runId, meterPoints, funnel });
    if (meterPoints.length === 0) return println(`Run ${runId} has no meter points followed (not a switch, or no account created yet).`);
    println(
      table(
        ['account', 'MPxN', 'status', 'final', 'since', 'detail'],
        meterPoints.map((p) => [p.account, p.mpxn, p.status, p.final ? (p.outcome ?? 'yes') : 'no', p.since, p.detail ?? '']),
      ),
    );
    println();
    println(`Accounts: ${funnel.accounts.on_supply} on supply, ${funnel.accounts.ended} ended short of it, ${funnel.accounts.waiting} waiting.`);
    println(
      `Points by status: ${Object.entries(funnel.byStatus)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
    );
  });
}

const resendOptionsSchema = optionsSchema(RESEND_REGISTRATION_OPTIONS);

/**
 * Sends flows again for the run's points that ended refused in the named statuses (a signal with
 * start to each account's follow: it starts again when it had ended). The follow reads the statuses
 * first, and sends only when every point of the account should get one.
 */
export async function resendRegistrationAction(runId: string, options: unknown): Promise<void> {
  const opts = parseOptions(resendOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    if (!(await runRow(pool, runId))) throw usageError('run_not_found', `no run ${runId} in the ledger`);
    const wanted = new Set(opts.status);
    const points = await createSupplyLedger(pool).runPoints(runId);
    const matches = (p: SupplyPointRow) => (p.flowRefused ? wanted.has('REGISTRATION_FLOW_ERROR') : endedRefused(p.status) && wanted.has(p.status));
    const accounts = new Map<string, SupplyPointRow>();
    for (const p of points) if (matches(p)) accounts.set(p.externalAccountNumber, p);
    const client = await s.temporal();
    for (const p of accounts.values()) {
      await client.workflow.signalWithStart('accountSupplyWorkflow', {
        taskQueue: ctx.cfg.TEMPORAL_TASK_QUEUE,
        workflowId: supplyWorkflowId(p.supplierCode, p.externalAccountNumber),
        args: [
          {
            runId: p.runId,
            supplierCode: p.supplierCode,
            externalAccountNumber: p.externalAccountNumber,
            accountNumber: p.accountNumber,
            pollMinSeconds: ctx.cfg.SUPPLY_POLL_MIN_SECONDS,
            pollMaxSeconds: ctx.cfg.SUPPLY_POLL_MAX_SECONDS,
          },
        ],
        signal: resendRegistrationSignal,
        signalArgs: [{ statuses: opts.status }],
      });
    }
    if (opts.json) return printJson({ runId, accounts: [...accounts.keys()] });
    info(`${accounts.size} accounts of ${runId} asked to send their registration flows again (${opts.status.join(', ')}).`);
    process.exitCode = EXIT.ok;
  });
}
