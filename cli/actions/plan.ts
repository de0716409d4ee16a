// What `kraken-migrate plan …` does (cli/commands/plan.ts declares the commands).
import fs from 'node:fs';
import { DateTime } from 'luxon';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Config } from '../../config';
import { migrationRunInputSchema } from '../../domain/inputs';
import { approveGate, controlPlan, planStatusQuery, type PlanAction, type PlanArgs, type PlanStatus, type WaveStatus } from '../../domain/plan-messages';
import { censusGateStatusMet, exitNumbersMet, formatRate, onSupplyRate, supplyGate } from '../../domain/plan-gates';
import { expandWindows } from '../../domain/plan-windows';
import { waveFit, type WaveFit } from '../../domain/plan-fit';
import { recentFinishedByRun } from '../../ledger/metrics';
import type { PlanFile } from '../../domain/plan-file';
import { TIMING_DEFAULTS } from '../../domain/timing-defaults';
import { planWorkflowId, trialRunId } from '../../domain/workflow-ids';
import { waveDependencies } from '../../domain/plan-waves';
import type { cutoverPlanWorkflow } from '../../workflows/cutover-plan';
import { loadCliContext, withServices, workflowUiUrl } from '../context';
import { CliError, EXIT, usageError } from '../errors';
import { loadPlanFile } from '../plan-file';
import { optionsSchema, parseOptions } from '../option-schema';
import {
  APPROVE_PLAN_OPTIONS,
  CANCEL_PLAN_OPTIONS,
  PLAN_STATUS_OPTIONS,
  START_PLAN_OPTIONS,
  VALIDATE_PLAN_OPTIONS,
  WAVE_CONTROL_OPTIONS,
} from '../options/plan';
import { printJson, println } from '../output';
import { parsePayloadOptions, parseSelectionOptions, parseSourceOption } from '../runs';
import { RUN_ID_PATTERN, newRunId } from '../run-id';

/** A wave's accounts when they can be counted before the night: its accounts file's lines, or its limit. */
function plannedAccounts(w: PlanFile['waves'][number]): number | undefined {
  return w.accounts
    ? fs
        .readFileSync(w.accounts, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length
    : w.limit;
}

/**
 * Each wave's windows as instants (ISO, UTC) and as the plan zone's wall clock, and whether its
 * accounts fit its windows and daily cap from `now` on (at `perSecond`, when one is stated).
 */
export function planSummary(plan: PlanFile, o: { perSecond?: number; now?: number } = {}) {
  const deps = waveDependencies(plan.waves);
  return {
    name: plan.name,
    timezone: plan.timezone,
    ratePerSecond: o.perSecond ?? null,
    waves: plan.waves.map((w, i) => {
      const intervals = expandWindows(w.windows, plan.timezone);
      const planned = plannedAccounts(w);
      const fit: WaveFit | null =
        planned === undefined
          ? null
          : waveFit({ accounts: planned, intervals, zone: plan.timezone, dailyCap: w.daily_cap, perSecond: o.perSecond, from: o.now ?? Date.now() });
      const windows = intervals.map((i) => ({
        start: new Date(i.start).toISOString(),
        end: new Date(i.end).toISOString(),
        local: `${local(i.start, plan.timezone)} – ${local(i.end, plan.timezone)}`,
      }));
      return {
        name: w.name,
        supplier: w.supplier,
        after: deps[i].map((j) => plan.waves[j].name),
        concurrency: w.concurrency,
        dailyCap: w.daily_cap ?? null,
        dryRunFirst: w.dry_run_first,
        gates: w.gates,
        windows,
        fit,
      };
    }),
  };
}

function local(t: number, zone: string): string {
  return DateTime.fromMillis(t, { zone }).toFormat('ccc yyyy-MM-dd HH:mm ZZZZ');
}

const validatePlanOptionsSchema = optionsSchema(VALIDATE_PLAN_OPTIONS);

/** One line on a wave's fit: its accounts, what its windows and cap admit, and how many are left over. */
function fitLine(fit: WaveFit | null, perSecond: number | undefined): string {
  const at = perSecond === undefined ? 'its windows and daily cap' : `its windows and daily cap at ${perSecond} accounts a second`;
  if (!fit) return `fit: not counted (no accounts file or limit)`;
  return fit.fits
    ? `fits: ${fit.accounts} accounts within ${at}`
    : `DOES NOT FIT: ${fit.accounts} accounts, ${at} admit ${fit.admitted}: ${fit.leftOver} left over`;
}

export async function validatePlanAction(file: string, options: unknown): Promise<void> {
  const opts = parseOptions(validatePlanOptionsSchema, options);
  const summary = planSummary(loadPlanFile(file), { perSecond: opts.rate });
  const unfit = summary.waves.filter((w) => w.fit && !w.fit.fits);
  // A wave its windows and cap cannot hold makes the plan invalid (exit 2), each such wave named.
  const verdict = () => {
    if (unfit.length)
      throw usageError(
        'plan_does_not_fit',
        unfit.map((w) => `wave ${w.name}: ${w.fit!.accounts} accounts, ${w.fit!.admitted} admitted, ${w.fit!.leftOver} left over`).join('; '),
      );
  };
  if (opts.json) {
    printJson(summary);
    return verdict();
  }
  println(`Plan ${summary.name} (${summary.timezone}): ${summary.waves.length} waves, ${unfit.length ? `${unfit.length} that do not fit` : 'valid'}.`);
  for (const w of summary.waves) {
    const gates = [
      w.dryRunFirst ? `dry run first${w.gates.entry.min_dry_run_pass_rate !== undefined ? ` (pass rate ≥ ${w.gates.entry.min_dry_run_pass_rate})` : ''}` : '',
      w.gates.entry.sign_off ? `entry sign-off${typeof w.gates.entry.sign_off === 'string' ? ` by ${w.gates.entry.sign_off}` : ''}` : '',
      `stop the line at ${w.gates.stop_line.max_same_code} same code / ${w.gates.stop_line.max_failure_rate} of ${w.gates.stop_line.over_last}`,
      w.gates.exit.min_reconciled_rate !== undefined ? `reconciled ≥ ${w.gates.exit.min_reconciled_rate}` : '',
      w.gates.exit.max_platform_only !== undefined ? `census platform only ≤ ${w.gates.exit.max_platform_only}` : '',
      w.gates.exit.max_ledger_only !== undefined ? `census ledger only ≤ ${w.gates.exit.max_ledger_only}` : '',
      w.gates.exit.min_on_supply_rate !== undefined ? `on supply ≥ ${w.gates.exit.min_on_supply_rate}` : '',
      w.gates.exit.max_days_to_supply !== undefined ? `no meter point waiting over ${w.gates.exit.max_days_to_supply} days` : '',
      w.gates.exit.sign_off ? `exit sign-off${typeof w.gates.exit.sign_off === 'string' ? ` by ${w.gates.exit.sign_off}` : ''}` : '',
    ].filter(Boolean);
    println(
      `  ${w.name}  supplier ${w.supplier}${w.after.length ? `  after ${w.after.join(', ')}` : ''}  concurrency ${w.concurrency}  daily cap ${w.dailyCap ?? 'none'}`,
    );
    println(`    gates: ${gates.join('; ')}`);
    println(
      `    ${w.windows.length} windows: ${w.windows
        .slice(0, 3)
        .map((x) => x.local)
        .join(', ')}${w.windows.length > 3 ? `, … ${w.windows[w.windows.length - 1].local}` : ''}`,
    );
    println(`    ${fitLine(w.fit, opts.rate)}`);
  }
  verdict();
}

/** The plan workflow's input from a checked plan file: each wave's run validated with the run's own schema. */
export async function planArgsOf(plan: PlanFile, cfg: Config, planId: string, pollSeconds: number): Promise<PlanArgs> {
  const waves = [];
  const deps = waveDependencies(plan.waves);
  for (const [i, w] of plan.waves.entries()) {
    const source =
      (await parsePayloadOptions({ payloads: w.payloads, payloadsTable: w.payloads_table, documents: w.documents })) ?? parseSourceOption(w.source);
    const selection = parseSelectionOptions({ limit: w.limit, accounts: w.accounts });
    const runId = `${planId}.${w.name}`;
    if (!RUN_ID_PATTERN.test(runId)) throw usageError('invalid_plan_id', `--plan-id ${planId}: the run id ${runId} is not a plain id`);
    const runArgs = {
      runId,
      supplierCode: w.supplier,
      source,
      selection,
      concurrency: w.concurrency,
      sendRegistrationFlows: w.send_registration_flows,
      timings: {
        eventWaitSeconds: cfg.OUTCOME_EVENT_WAIT_SECONDS,
        pollMaxSeconds: cfg.OUTCOME_POLL_MAX_SECONDS,
        supplierRecheckSeconds: TIMING_DEFAULTS.supplierRecheckSeconds,
        supplyPollMinSeconds: cfg.SUPPLY_POLL_MIN_SECONDS,
        supplyPollMaxSeconds: cfg.SUPPLY_POLL_MAX_SECONDS,
      },
      stopLine: {
        enabled: true,
        maxFailureRate: w.gates.stop_line.max_failure_rate,
        overLast: w.gates.stop_line.over_last,
        maxSameCode: w.gates.stop_line.max_same_code,
      },
    };
    const run = migrationRunInputSchema.parse(runArgs);
    // dry_run_first: the same run as a platform dry run; trial N runs as <id>.W.trial-N.
    const trialBase = `${runId}.trial`;
    if (w.dry_run_first && !RUN_ID_PATTERN.test(trialRunId(trialBase, 999)))
      throw usageError('invalid_plan_id', `--plan-id ${planId}: the trial run id ${trialRunId(trialBase, 1)} is not a plain id (too long?)`);
    const trial = w.dry_run_first
      ? {
          trial: {
            run: migrationRunInputSchema.parse({ ...runArgs, runId: trialBase, dryRun: true }),
            ...(w.gates.entry.min_dry_run_pass_rate !== undefined ? { minPassRate: w.gates.entry.min_dry_run_pass_rate } : {}),
          },
        }
      : {};
    const planned = plannedAccounts(w);
    waves.push({
      name: w.name,
      run,
      windows: w.windows,
      ...(w.daily_cap !== undefined ? { dailyCap: w.daily_cap } : {}),
      ...(planned !== undefined ? { planned } : {}),
      after: deps[i].map((j) => plan.waves[j].name),
      ...trial,
      entrySignOff: w.gates.entry.sign_off,
      exitSignOff: w.gates.exit.sign_off,
      ...(w.gates.exit.min_reconciled_rate !== undefined ? { minReconciledRate: w.gates.exit.min_reconciled_rate } : {}),
      ...(w.gates.exit.max_platform_only !== undefined || w.gates.exit.max_ledger_only !== undefined
        ? { census: { maxPlatformOnly: w.gates.exit.max_platform_only ?? null, maxLedgerOnly: w.gates.exit.max_ledger_only ?? null } }
        : {}),
      ...(w.gates.exit.min_on_supply_rate !== undefined || w.gates.exit.max_days_to_supply !== undefined
        ? { supply: { minOnSupplyRate: w.gates.exit.min_on_supply_rate ?? null, maxDaysToSupply: w.gates.exit.max_days_to_supply ?? null } }
        : {}),
    });
  }
  return { planId, name: plan.name, timezone: plan.timezone, waves, pollSeconds, continueAsNewAtEvents: 8000 };
}

const startPlanOptionsSchema = optionsSchema(START_PLAN_OPTIONS);
const planStatusOptionsSchema = optionsSchema(PLAN_STATUS_OPTIONS);

export async function startPlanAction(file: string, options: unknown): Promise<void> {
  const opts = parseOptions(startPlanOptionsSchema, options);
  const plan = loadPlanFile(file);
  // A name too long for the id it lends is refused with the wave's run id (planArgsOf).
  const planId = opts.planId ?? newRunId().replace(/^run-/, `${plan.name}-`);
  const ctx = loadCliContext();
  const args = await planArgsOf(plan, ctx.cfg, planId, opts.pollSeconds);
  await withServices(ctx, async (s) => {
    const client = await s.temporal();
    const workflowId = planWorkflowId(planId);
    await client.workflow.start<typeof cutoverPlanWorkflow>('cutoverPlanWorkflow', {
      workflowId,
      taskQueue: ctx.cfg.TEMPORAL_TASK_QUEUE,
      args: [args],
      staticSummary: `Cutover plan ${plan.name} · ${plan.waves.length} waves · ${plan.timezone}`,
    });
    const out = { planId, workflowId, uiUrl: workflowUiUrl(ctx.cfg, workflowId), runs: args.waves.map((w) => w.run.runId) };
    if (opts.json) return printJson(out);
    println(`Started plan ${planId} (${plan.waves.length} waves)`);
    println(`Temporal UI: ${out.uiUrl}`);
  });
}

async function planHandle(client: Client, planId: string) {
  return client.workflow.getHandle<typeof cutoverPlanWorkflow>(planWorkflowId(planId));
}

/** Minutes of finished accounts a wave's measured rate is taken over (as the metrics' projected end). */
const MEASURED_RATE_MINUTES = 10;

/** Whether each unfinished wave's accounts left fit what is left of its windows and cap today on, at the stated or the measured rate. */
export function waveFits(st: PlanStatus, o: { now: number; statedPerSecond?: number; measured: Map<string, number> }) {
  const fits: Record<string, WaveFit & { perSecond: number | null; rate: 'stated' | 'measured' | 'none' }> = {};
  for (const w of st.waves) {
    const a = w.accounts;
    if (a.planned === null || ['completed', 'skipped', 'cancelled'].includes(w.state)) continue;
    const run = w.runs.at(-1);
    const measured = run === undefined ? undefined : o.measured.get(run);
    const perSecond = o.statedPerSecond ?? (measured === undefined ? undefined : measured / (MEASURED_RATE_MINUTES * 60));
    const fit = waveFit({
      accounts: Math.max(0, a.planned - a.started),
      intervals: w.windows.map((x) => ({ start: Date.parse(x.start), end: Date.parse(x.end) })),
      zone: st.timezone,
      dailyCap: w.daily_cap ?? undefined,
      startedToday: w.started_today,
      perSecond,
      from: o.now,
    });
    fits[w.name] = { ...fit, perSecond: perSecond ?? null, rate: o.statedPerSecond !== undefined ? 'stated' : perSecond !== undefined ? 'measured' : 'none' };
  }
  return fits;
}

export async function planStatusAction(planId: string, options: unknown): Promise<void> {
  const opts = parseOptions(planStatusOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const st = await (await planHandle(await s.temporal(), planId)).query(planStatusQuery);
    // The measured rate is the ledger's: without it (unreachable) the fit is told from the windows and caps alone.
    const measured = new Map((await recentFinishedByRun(await s.db(), MEASURED_RATE_MINUTES).catch(() => [])).map((r) => [r.run, r.n]));
    const fits = waveFits(st, { now: Date.now(), statedPerSecond: opts.rate, measured });
    if (opts.json) return printJson({ ...st, fit: fits });
    for (const line of planStatusLines(st, fits)) println(line);
  });
}

export function planStatusLines(st: PlanStatus, fits: ReturnType<typeof waveFits> = {}): string[] {
  const gate = (name: string, g: WaveStatus['gates']['entry']) =>
    g.state === 'not_required'
      ? ''
      : `${name} ${g.state}${g.approved_by ? ` by ${g.approved_by} at ${g.approved_at}` : g.required_by ? ` (needs ${g.required_by})` : ''}`;
  return [
    `Plan ${st.id} (${st.name}, ${st.timezone}): ${st.state}${st.current_wave ? `, wave ${st.current_wave}` : ''}`,
    ...st.waves.flatMap((w) => {
      const a = w.accounts;
      return [
        `  ${w.name}  ${w.state}  started ${a.started}${a.planned !== null ? `/${a.planned}` : ''}, completed ${a.completed}, failed ${a.failed}, not attempted ${a.not_attempted}, in flight ${a.in_flight}${w.daily_cap !== null ? `; today ${w.started_today}/${w.daily_cap}` : ''}`,
        ...[
          w.after?.length ? `after ${w.after.join(', ')}` : '',
          w.dry_run ? dryRunLine(w.dry_run) : '',
          w.next_window ? `window ${w.next_window.start} – ${w.next_window.end}` : '',
          w.stop_line.tripped ? `STOPPED THE LINE: ${w.stop_line.reason}` : '',
          gate('entry', w.gates.entry),
          gate('exit', w.gates.exit),
          ...exitNumberLines(w.gates.exit),
          fits[w.name] ? statusFitLine(fits[w.name]) : '',
        ]
          .filter(Boolean)
          .map((x) => `    ${x}`),
      ];
    }),
  ];
}

/**
 * The numbers the exit gate decides on, as it last read them, beside its rules: the reconciled
 * share (when a minimum is set), the supplier census and the switch's meter points (when taken).
 */
export function exitNumberLines(g: WaveStatus['gates']['exit']): string[] {
  const vs = (rate: number | null, min: number | null, met: boolean) =>
    `${formatRate(rate)}${min === null ? '' : ` ${met ? '≥' : '<'} min ${formatRate(min)}`}`;
  const lines: string[] = [];
  if (g.min_reconciled_rate !== null)
    lines.push(`reconciled ${vs(g.reconciled_rate, g.min_reconciled_rate, exitNumbersMet(g.reconciled_rate, g.min_reconciled_rate))}`);
  const c = g.census;
  if (c)
    lines.push(
      `supplier census ${c.taken_at}: platform only ${c.platform_only} (max ${c.max_platform_only ?? 'none'}), ledger only ${c.ledger_only} (max ${c.max_ledger_only ?? 'none'})${censusGateStatusMet(c) ? '' : ': OVER'}`,
    );
  const x = g.supply;
  if (x) {
    const rate = onSupplyRate(x);
    const days = x.max_days_to_supply === null ? '' : `, ${x.over_max_days} past max_days_to_supply ${x.max_days_to_supply}`;
    lines.push(
      `switch ${x.read_at}: ${x.points} meter points, on supply ${x.on_supply} (${vs(rate, x.min_on_supply_rate, exitNumbersMet(rate, x.min_on_supply_rate))}), still followed ${x.waiting}${days}: ${supplyGate(x)}`,
    );
  }
  return lines;
}

/** The accounts not started yet against what is left of the wave's windows and cap, at the rate it names. */
function statusFitLine(f: ReturnType<typeof waveFits>[string]): string {
  const at = f.perSecond === null ? 'its windows and daily cap' : `its windows and daily cap at ${f.rate} ${+f.perSecond.toFixed(3)} accounts a second`;
  return f.fits
    ? `fits: ${f.accounts} accounts to start within ${at}`
    : `DOES NOT FIT: ${f.accounts} accounts to start, ${at} admit ${f.admitted}: ${f.leftOver} left over`;
}

/** `trial load 2 (run P.W.trial-2): not_met, pass rate 80.0% < min 95.0%; completed 8, failed 2, not attempted 0` */
export function dryRunLine(d: NonNullable<WaveStatus['dry_run']>): string {
  if (d.runs.length === 0) return `trial load (dry run) first${d.min_pass_rate !== null ? `, pass rate ≥ ${formatRate(d.min_pass_rate)}` : ''}`;
  const a = d.accounts;
  const rate =
    d.pass_rate === null
      ? ''
      : `, pass rate ${formatRate(d.pass_rate)}${d.min_pass_rate !== null ? ` ${d.state === 'not_met' ? '<' : '≥'} min ${formatRate(d.min_pass_rate)}` : ''}`;
  return `trial load ${d.runs.length} (run ${d.runs[d.runs.length - 1]}): ${d.state}${rate}; completed ${a.completed}, failed ${a.failed}, not attempted ${a.not_attempted}`;
}

const approvePlanOptionsSchema = optionsSchema(APPROVE_PLAN_OPTIONS);

export async function approvePlanAction(planId: string, options: unknown): Promise<void> {
  const opts = parseOptions(approvePlanOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const h = await planHandle(await s.temporal(), planId);
    try {
      const w = await h.executeUpdate(approveGate, { args: [{ wave: opts.wave, gate: opts.gate, by: opts.by, ...(opts.note ? { note: opts.note } : {}) }] });
      if (opts.json) return printJson(w);
      println(`Wave ${w.name}: ${opts.gate} gate signed off by ${w.gates[opts.gate].approved_by} at ${w.gates[opts.gate].approved_at}.`);
    } catch (e) {
      if (e instanceof WorkflowUpdateFailedError) throw new CliError('gate_refused', e.cause?.message ?? e.message, EXIT.failures);
      throw e;
    }
  });
}

const waveControlOptionsSchema = optionsSchema(WAVE_CONTROL_OPTIONS);
const cancelPlanOptionsSchema = optionsSchema(CANCEL_PLAN_OPTIONS);

export async function controlPlanAction(action: PlanAction, planId: string, options: unknown): Promise<void> {
  const opts = parseOptions(action === 'cancel' ? cancelPlanOptionsSchema : waveControlOptionsSchema, options);
  const ctx = loadCliContext();
  await withServices(ctx, async (s) => {
    const h = await planHandle(await s.temporal(), planId);
    try {
      const st = await h.executeUpdate(controlPlan, { args: [{ action, ...(opts.wave ? { wave: opts.wave } : {}) }] });
      if (opts.json) return printJson(st);
      for (const line of planStatusLines(st)) println(line);
    } catch (e) {
      if (e instanceof WorkflowUpdateFailedError) throw new CliError('plan_refused', e.cause?.message ?? e.message, EXIT.failures);
      throw e;
    }
  });
}
