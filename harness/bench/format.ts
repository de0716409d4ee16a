import type { BaselineCheck, BenchResults, FloorRun, PipelineRun, RoundFigures, Rounds } from './results';
import { BASELINE_FILE, rssPerAccountInFlight } from './baseline';
import { median, ratio, round } from './stats';
import { cpuLessStandIns, cpuOf, STAND_IN_GROUPS, sumOf } from './cpu-sums';

export interface Row {
  figure: string;
  value: string;
  note?: string;
}

/** A number for people: thousands separators, fixed decimals; a dash when it was not measured. */
export function fmt(n: number | undefined, digits = 0): string {
  if (n === undefined || !Number.isFinite(n)) return '—';
  return n.toLocaleString('en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms >= 1000 ? `${fmt(ms / 1000, 2)} s` : `${fmt(ms)} ms`;
}

/** Columns padded to their widest cell; the value column is right-aligned so digits line up. */
export function renderTable(rows: readonly Row[], headers: Row = { figure: 'Figure', value: 'Value', note: 'Note' }): string {
  const all = [headers, ...rows];
  const w1 = Math.max(...all.map((r) => r.figure.length));
  const w2 = Math.max(...all.map((r) => r.value.length));
  const line = (r: Row) => `${r.figure.padEnd(w1)}  ${r.value.padStart(w2)}${r.note ? `  ${r.note}` : ''}`.trimEnd();
  const rule = `${'-'.repeat(w1)}  ${'-'.repeat(w2)}  ${'-'.repeat(Math.max(4, ...all.map((r) => (r.note ?? '').length)))}`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

const entries = (rec: Record<string, number>) =>
  Object.entries(rec)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${fmt(n)}`)
    .join(', ');

/** The share of the pass's slots its accounts held (absent from older results). */
const slotsNote = (r: { slotsBusy?: number }) => (r.slotsBusy === undefined ? '' : `, slots busy ${fmt(r.slotsBusy, 2)}`);

/** The pass's rate with its window full, without the ramp and the drain (absent from older results and short passes). */
const steadyNote = (r: { steadyAccountsPerSecond?: number }) =>
  r.steadyAccountsPerSecond === undefined ? '' : `, steady ${fmt(r.steadyAccountsPerSecond, 2)} acc/s`;

/** A wall-clock ratio, then the same of the steady rates when both were measured. */
const steadyRatioNote = (steady: number | undefined) =>
  steady === undefined ? '' : `; steady rates (the window full, no ramp, no drain: stats.ts steadyRate): ${fmt(steady, 2)}`;

function pipelineRows(label: string, r: PipelineRun): Row[] {
  const rows: Row[] = [
    {
      figure: label,
      value: `${fmt(r.accountsPerSecond, 2)} acc/s`,
      note: `${fmt(r.completed)}/${fmt(r.accounts)} completed in ${fmt(r.wallSeconds, 1)} s${steadyNote(r)}, concurrency ${r.concurrency}, load ${fmt(r.loadAvg1, 1)}`,
    },
    {
      figure: '  account latency p50 / p95',
      value: `${fmtMs(r.latency.p50Ms)} / ${fmtMs(r.latency.p95Ms)}`,
      note: `max ${fmtMs(r.latency.maxMs)} (ledger: started by the run → outcome recorded)${slotsNote(r)}`,
    },
    {
      figure: '  outcomes by source',
      value: entries(r.outcomeSources),
      note: `platform events by match: ${entries(r.eventsByMatchStatus) || 'none'}${r.eventsUnidentified ? `; ${fmt(r.eventsUnidentified)} without an account number` : ''}`,
    },
  ];
  if (r.cost) {
    const c = r.cost;
    rows.push(
      {
        figure: '  history events per account',
        value: fmt(c.eventsPerAccount, 1),
        note: `${fmt(c.accountEventsPerAccount, 1)} in the account workflow + ${fmt(c.runEventsPerAccount, 2)} its share of the run (${c.runSegments} segment(s)); every history read`,
      },
      {
        figure: '  Temporal Cloud actions per account',
        value: fmt(c.actionsPerAccount, 2),
        note: Object.entries(c.actionsByKind)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => `${k} ${fmt(n, 2)}`)
          .join(', '),
      },
    );
  } else {
    rows.push({
      figure: '  history events per account',
      value: fmt(r.historyEventsPerAccount, 1),
      note: 'mean over the run’s account workflows (run share not counted)',
    });
  }
  rows.push(
    {
      figure: '  worker peak RSS',
      value: `${fmt(r.workerPeakRssMb)} MB`,
      note: `${r.workers} worker process tree(s), summed; ${fmt(rssPerAccountInFlight(r), 2)} MB per account in flight (÷ concurrency ${r.concurrency})`,
    },
    { figure: '  Temporal server peak RSS', value: `${fmt(r.temporalPeakRssMb)} MB` },
    ...cpuRow(r),
    ...pgRows(r),
  );
  return rows;
}

/** What Postgres ran per account: round trips (exact, whatever the load) and the costliest statements. */
function pgRows(r: { postgres?: PipelineRun['postgres'] }): Row[] {
  const p = r.postgres;
  if (!p) return [];
  return [
    {
      figure: '  Postgres calls per account',
      value: fmt(p.callsPerAccount.pipeline, 2),
      note: `round trips of the pipeline (+ ${fmt(p.nestedCallsPerAccount, 2)} nested in triggers/functions, ${fmt(p.execMsPerAccount, 2)} ms executing); sandbox ${fmt(p.callsPerAccount.sandbox, 2)}; begin/commit (either) ${fmt(p.callsPerAccount.either, 2)}; ${p.autovacuums} autovacuum/analyze run(s), ${p.checkpoints} checkpoint(s) during the pass`,
    },
    ...(p.walBytesPerAccount === undefined
      ? []
      : [
          {
            figure: '  Postgres WAL per account',
            value: `${fmt(p.walBytesPerAccount / 1024, 1)} kB`,
            note: `written by the pipeline's statements (${fmt(p.walFpiPerAccount ?? 0, 2)} full-page images an account: a checkpoint in the pass raises them)`,
          },
        ]),
    ...p.top.slice(0, 6).map((s) => ({
      figure: `    ${s.owner}${s.nested ? ' (nested)' : ''}`,
      value: `${fmt(s.callsPerAccount, 2)} × ${fmt(s.msPerAccount, 3)} ms`,
      note: s.query.slice(0, 110),
    })),
  ];
}

/** Where a pass's CPU went, per account: on a machine with no spare core, this is what sets throughput. */
function cpuRow(r: { cpuMsPerAccount?: Record<string, number> }): Row[] {
  const c = r.cpuMsPerAccount;
  const total = cpuOf(c);
  const deployed = cpuLessStandIns(c);
  if (!c || total === undefined || deployed === undefined) return [];
  const standIns = total - deployed;
  return [
    {
      figure: '  CPU per account',
      value: `${fmt(total, 0)} ms`,
      note: Object.entries(c)
        .map(([k, n]) => `${k} ${fmt(n, 1)}`)
        .join(' · '),
    },
    {
      figure: '    without the stand-ins',
      value: `${fmt(deployed, 0)} ms`,
      note: `less ${STAND_IN_GROUPS.join(', ')} (${fmt(standIns, 1)} ms): what a deployment runs (the events receiver, \`events\`, is the pipeline's)`,
    },
  ];
}

/** Temporal's server and the bench process's worker: where a no-op floor pass spends its CPU. */
const temporalAndWorker = (c: Record<string, number> | undefined) =>
  c && Object.keys(c).length > 0 ? sumOf(c, (g) => g === 'temporal' || g === 'bench') : undefined;

/**
 * The least CPU an account can cost here in any pipeline that does the script's work on Temporal:
 * the floor's workflow and no-op activity (the server, and the bench process that runs the floor's
 * worker) plus the plain script's own work and the tenant's stand-ins it drives (not the Temporal
 * server and bench idling beside it). Undefined unless both passes were measured.
 */
export function leastCpuPerAccount(r: Pick<BenchResults, 'floor' | 'plainScript'>): number | undefined {
  const floor = r.floor?.cpuMsPerAccount;
  const script = r.plainScript?.cpuMsPerAccount;
  if (!floor || !script || Object.keys(floor).length === 0 || Object.keys(script).length === 0) return undefined;
  return temporalAndWorker(floor)! + sumOf(script, (g) => g !== 'temporal' && g !== 'bench' && g !== 'worker');
}

/** The CPU bounds beside the ceiling: the least any pipeline costs here, and what ours costs beyond the ceiling in the same run. */
function cpuBoundRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const least = leastCpuPerAccount(r);
  if (least !== undefined)
    rows.push({
      figure: '  floor + script, CPU per account',
      value: `${fmt(least, 0)} ms`,
      note: "the least any pipeline doing the script's work on Temporal costs here: the floor's server and worker + the script's work and its stand-ins",
    });
  const pipeline = cpuOf(r.endToEnd.cpuMsPerAccount);
  const ceiling = cpuOf(r.ceiling?.cpuMsPerAccount);
  if (pipeline !== undefined && ceiling !== undefined)
    rows.push({
      figure: '  pipeline − ceiling, CPU per account',
      value: `${fmt(pipeline - ceiling, 0)} ms`,
      note: 'what the durable part costs in this run: the ledger, the event wait, the read-back, the window, history beyond the floor',
    });
  return rows;
}

/** `--ceiling-kept`: the ceiling that also reads each account back and records its one outcome, and the ratios it bounds. */
function keptRows(r: BenchResults, k: FloorRun): Row[] {
  const rows: Row[] = [
    {
      figure: 'Ceiling kept (+ read-back, one outcome)',
      value: `${fmt(k.accountsPerSecond, 2)} acc/s`,
      note: `${fmt(k.completed)}/${fmt(k.accounts)} in ${fmt(k.wallSeconds, 1)} s${steadyNote(k)} at concurrency ${k.concurrency}: the ceiling's activity, then the pipeline's read-back and compare and one ledger statement`,
    },
    ...cpuRow(k),
  ];
  if (k.notCompleted > 0) rows.push({ figure: '  NOT completed', value: fmt(k.notCompleted) });
  rows.push(
    {
      figure: '  kept / ceiling',
      value: fmt(r.ratios.keptOverCeiling, 2),
      note: `what the read-back and one outcome leave of the ceiling: the most a pipeline keeping them reaches of it${steadyRatioNote(r.ratios.steady?.keptOverCeiling)}`,
    },
    {
      figure: '  pipeline / kept',
      value: fmt(r.ratios.pipelineOverKept, 2),
      note: `the pipeline at its best ÷ that bound (1 = all its durable part but those two free)${steadyRatioNote(r.ratios.steady?.pipelineOverKept)}`,
    },
  );
  return rows;
}

/**
 * The price of the pipeline's two durable steps in Temporal and the worker (`--floor-steps`): the floor in
 * the pipeline account's shape against the floor, its server and worker only. With the kept ceiling, the
 * least a pipeline that keeps its promises in such steps costs, and what that leaves of the ceiling
 * where the cores are the bound (both passes keep them busy: the ratio is then the CPU's).
 */
export function stepsPrice(r: Pick<BenchResults, 'floor' | 'floorSteps' | 'ceiling' | 'ceilingKept'>) {
  const steps = temporalAndWorker(r.floorSteps?.cpuMsPerAccount);
  const floor = temporalAndWorker(r.floor?.cpuMsPerAccount);
  if (steps === undefined || floor === undefined) return undefined;
  const price = steps - floor;
  const kept = cpuOf(r.ceilingKept?.cpuMsPerAccount);
  const ceiling = cpuOf(r.ceiling?.cpuMsPerAccount);
  const least = kept === undefined ? undefined : kept + price;
  return { price, least, ceilingOverLeast: least === undefined || ceiling === undefined ? undefined : ceiling / least };
}

function stepsRows(r: BenchResults, s: FloorRun): Row[] {
  const rows: Row[] = [
    {
      figure: "Floor in the pipeline's shape (2 steps more)",
      value: `${fmt(s.accountsPerSecond, 2)} acc/s`,
      note: `${fmt(s.completed)}/${fmt(s.accounts)} in ${fmt(s.wallSeconds, 1)} s${steadyNote(s)} at concurrency ${s.concurrency}, ${fmt(s.historyEventsPerAccount, 1)} events/wf: a no-op local activity, the floor's activity, a no-op local activity (as prepare, schedule, record)`,
    },
    ...cpuRow(s),
  ];
  if (s.notCompleted > 0) rows.push({ figure: '  NOT completed', value: fmt(s.notCompleted) });
  rows.push({
    figure: '  steps / floor',
    value: fmt(r.ratios.stepsOverFloor, 2),
    note: `the floor's throughput left by two empty steps${steadyRatioNote(r.ratios.steady?.stepsOverFloor)}`,
  });
  const p = stepsPrice(r);
  if (p) {
    rows.push({
      figure: "  the steps' price, CPU per account",
      value: `${fmt(p.price, 1)} ms`,
      note: "this pass's Temporal and worker less the floor's: two durable steps with no work in them",
    });
    if (p.least !== undefined && p.ceilingOverLeast !== undefined)
      rows.push(
        {
          figure: "  kept + the steps' price, CPU per account",
          value: `${fmt(p.least, 0)} ms`,
          note: 'the least a pipeline costs that keeps the read-back and one outcome in steps of their own, its ledger, window and event route free',
        },
        {
          figure: '  ceiling ÷ that',
          value: fmt(p.ceilingOverLeast, 2),
          note: "the most pipeline / ceiling such a pipeline reaches where the cores are the bound (the ceiling's CPU ÷ its)",
        },
      );
  }
  return rows;
}

const roundLine = (f: RoundFigures) =>
  `${fmt(f.pipelineOverCeiling, 2)} · ${fmt(f.pipelineOverFloor, 2)} (${fmt(f.steadyPipelineOverCeiling, 2)} · ${fmt(f.steadyPipelineOverFloor, 2)}) · ${fmt(f.cpuMsPerAccount, 0)} (${fmt(f.cpuLessStandInsMs, 0)}) · ${fmt(f.postgresCpuMs, 1)} · ${fmt(f.pipelineMinusCeilingCpuMs, 0)}`;

/** `--rounds`: each round's figures on a line, then their medians and spread, the figures a goal is judged on. */
function roundRows(rounds: Rounds): Row[] {
  return [
    {
      figure: `Rounds (${rounds.runs.length}: pipeline, floor, ceiling again)`,
      value: 'p/ceil · p/floor (steady: the same two) · CPU (less stand-ins) · Postgres · p − ceil',
      note: "each pass beside the others of its round, the order reversed every other round (bench/rounds.ts); steady: of the passes' rates with the window full; CPU in ms an account",
    },
    ...rounds.runs.map((x, i) => ({
      figure: `  round ${i + 1}`,
      value: roundLine(x.figures),
      note: `${x.order.join(' → ')}: ${fmt(x.pipeline.accountsPerSecond, 2)} · ${fmt(x.floor.accountsPerSecond, 2)} · ${fmt(x.ceiling.accountsPerSecond, 2)} acc/s (steady ${fmt(x.pipeline.steadyAccountsPerSecond, 2)} · ${fmt(x.floor.steadyAccountsPerSecond, 2)} · ${fmt(x.ceiling.steadyAccountsPerSecond, 2)}), load ${fmt(x.pipeline.loadAvg1, 1)}`,
    })),
    { figure: '  median', value: roundLine(rounds.median), note: `lowest ${roundLine(rounds.min)}; highest ${roundLine(rounds.max)}` },
  ];
}

function sweepRow(label: string, runs: readonly { concurrency: number; accountsPerSecond: number }[], best: number | undefined): Row | undefined {
  if (runs.length < 2) return undefined;
  return {
    figure: label,
    value: runs.map((x) => `${x.concurrency}: ${fmt(x.accountsPerSecond, 1)}`).join(' · '),
    note: `acc/s by concurrency; best ${best ?? '—'}`,
  };
}

export function resultRows(r: BenchResults): Row[] {
  const rows: Row[] = [...pipelineRows(`End-to-end pipeline (${r.endToEnd.workers} worker, best concurrency)`, r.endToEnd)];
  const ps = sweepRow('  pipeline sweep', r.pipelineSweep, r.endToEnd.concurrency);
  if (ps) rows.push(ps);
  if (r.endToEnd.notCompleted > 0) {
    const codes = Object.entries(r.endToEnd.failedByCode)
      .map(([c, n]) => `${c}×${n}`)
      .join(', ');
    rows.push({ figure: '  NOT completed', value: fmt(r.endToEnd.notCompleted), note: codes || undefined });
  }
  if (r.floor) {
    rows.push({
      figure: 'Temporal floor (1 workflow + 1 no-op activity)',
      value: `${fmt(r.floor.accountsPerSecond, 2)} acc/s`,
      note: `peak: ${fmt(r.floor.completed)}/${fmt(r.floor.accounts)} in ${fmt(r.floor.wallSeconds, 1)} s${steadyNote(r.floor)} at concurrency ${r.floor.concurrency}, p50 ${fmtMs(r.floor.latency.p50Ms)} (client: start → result)${slotsNote(r.floor)}, ${fmt(r.floor.historyEventsPerAccount, 1)} events/wf, 2 actions/wf`,
    });
    rows.push(...cpuRow(r.floor), ...pgRows(r.floor));
    const fs = sweepRow('  floor sweep', r.floorSweep, r.floor.concurrency);
    if (fs) rows.push(fs);
    rows.push({
      figure: '  pipeline / floor',
      value: fmt(r.ratios.pipelineOverFloor, 2),
      note: `pipeline at its best ÷ the floor at its peak (1 = as fast as bare Temporal)${steadyRatioNote(r.ratios.steady?.pipelineOverFloor)}`,
    });
  }
  if (r.plainScript) {
    rows.push({
      figure: 'Plain script (no Temporal)',
      value: `${fmt(r.plainScript.accountsPerSecond, 2)} acc/s`,
      note: `${fmt(r.plainScript.completed)}/${fmt(r.plainScript.accounts)} in ${fmt(r.plainScript.wallSeconds, 1)} s at concurrency ${r.plainScript.concurrency}, p50 ${fmtMs(r.plainScript.latency.p50Ms)} / p95 ${fmtMs(r.plainScript.latency.p95Ms)}, peak RSS ${fmt(r.plainScript.peakRssMb)} MB`,
    });
    rows.push(...cpuRow(r.plainScript));
    rows.push({ figure: '  pipeline / script', value: fmt(r.ratios.pipelineOverScript, 2), note: 'throughput ratio (1 = as fast as the script)' });
  }
  if (r.ceiling) {
    const c = r.ceiling;
    rows.push({
      figure: "Ceiling (the script's work as the floor's activity)",
      value: `${fmt(c.accountsPerSecond, 2)} acc/s`,
      note: `${fmt(c.completed)}/${fmt(c.accounts)} in ${fmt(c.wallSeconds, 1)} s${steadyNote(c)} at concurrency ${c.concurrency}, p50 ${fmtMs(c.latency.p50Ms)} (client: start → result)${slotsNote(c)}; no ledger, no events, nothing durable between steps`,
    });
    rows.push(...cpuRow(c));
    if (c.notCompleted > 0) rows.push({ figure: '  NOT completed', value: fmt(c.notCompleted) });
    rows.push(
      {
        figure: '  pipeline / ceiling',
        value: fmt(r.ratios.pipelineOverCeiling, 2),
        note: `the pipeline at its best ÷ the ceiling (1 = all its durable part free)${steadyRatioNote(r.ratios.steady?.pipelineOverCeiling)}`,
      },
      {
        figure: '  ceiling / floor',
        value: fmt(r.ratios.ceilingOverFloor, 2),
        note: `the most a pipeline doing the script's work reaches of the floor here${steadyRatioNote(r.ratios.steady?.ceilingOverFloor)}`,
      },
      { figure: '  ceiling / script', value: fmt(r.ratios.ceilingOverScript, 2), note: 'the most such a pipeline reaches of the script here' },
      ...cpuBoundRows(r),
    );
  }
  if (r.ceilingKept) rows.push(...keptRows(r, r.ceilingKept));
  if (r.floorSteps) rows.push(...stepsRows(r, r.floorSteps));
  if (r.rounds) rows.push(...roundRows(r.rounds));
  if (r.validation) {
    const v = r.validation.payloadsPerSecondPerCore;
    rows.push({
      figure: 'Validation (validateAccount, one core)',
      value: `${fmt(v.median)} payloads/s`,
      note: `median of ${v.runs.length} × ${fmt(r.validation.seconds, 1)} s: ${v.runs.map((x) => fmt(x)).join(', ')}`,
    });
  }
  if (r.sandbox) {
    const s = r.sandbox;
    rows.push({
      figure: 'Sandbox schedule requests',
      value: `${fmt(s.requestsPerSecond.median)} req/s`,
      note: `median of ${s.requestsPerSecond.runs.length} × ${fmt(s.requestsPerRun)} @ ${s.concurrency}: ${s.requestsPerSecond.runs.map((x) => fmt(x)).join(', ')}; p50 ${fmtMs(s.p50Ms)} p95 ${fmtMs(s.p95Ms)}; ${s.failed} not 201`,
    });
  }
  if (r.scaling && r.scaling.length > 0) {
    const base = r.scaling[0];
    const speedup = (s: PipelineRun) => (base.accountsPerSecond > 0 ? round(s.accountsPerSecond / base.accountsPerSecond, 2) : undefined);
    r.scaling.forEach((s, i) => {
      rows.push({
        figure: i === 0 ? `Scaling: ${s.workers} worker process` : `Scaling: ${s.workers} worker processes, fresh stack ${i}`,
        value: `${fmt(s.accountsPerSecond, 2)} acc/s`,
        note: `×${fmt(speedup(s), 2)} of 1 worker; ${fmt(s.completed)}/${fmt(s.accounts)}, p95 ${fmtMs(s.latency.p95Ms)}, worker RSS ${fmt(s.workerPeakRssMb)} MB, load ${fmt(s.loadAvg1, 1)}`,
      });
    });
    const repeats = r.scaling.slice(1).map((s) => s.accountsPerSecond);
    if (repeats.length > 1) {
      const lo = Math.min(...repeats);
      const hi = Math.max(...repeats);
      rows.push({
        figure: '  2 workers: median (spread)',
        value: `${fmt(median(repeats), 2)} acc/s`,
        note: `min ${fmt(lo, 2)} – max ${fmt(hi, 2)} over ${repeats.length} fresh stacks; ×${fmt(ratio(median(repeats), base.accountsPerSecond), 2)} of 1 worker`,
      });
    }
  }
  if (r.memory) {
    const m = r.memory;
    const first = m.samples[0];
    const last = m.samples.at(-1);
    rows.push({
      figure: `Memory growth (${fmt(m.accounts)} accounts, 1 run)`,
      value: `${m.growthMb !== undefined && m.growthMb >= 0 ? '+' : ''}${fmt(m.growthMb)} MB`,
      note: `worker RSS ${fmt(m.rssAtFirstMb)} MB after ${fmt(first?.finished)} → ${fmt(m.rssAtLastMb)} MB after ${fmt(last?.finished)}; ${fmt(m.run.accountsPerSecond, 2)} acc/s`,
    });
  }
  if (r.metricsCost) {
    const c = r.metricsCost;
    rows.push({
      figure: 'Metrics on / off: worker CPU per account',
      value: `×${fmt(c.workerOnOverOff, 3)}`,
      note: `${fmt(c.on.cpuMsPerAccount?.worker, 1)} ms on (${c.scrapes} scrapes, every 5 s) vs ${fmt(c.off.cpuMsPerAccount?.worker, 1)} ms off; every process: ×${fmt(c.totalOnOverOff, 3)}`,
    });
  }
  return rows;
}

/** The best pass against the committed baseline: a rise above its tolerance is flagged, CPU and memory with a caveat. */
export function baselineLines(checks: readonly BaselineCheck[] | undefined, load1: number): string[] {
  if (!checks) return [`baseline: none (${BASELINE_FILE} missing)`];
  const rose = checks.filter((c) => c.rose);
  return [
    `baseline (${BASELINE_FILE}), the best pipeline pass: ${checks.map((c) => `${c.figure} ${fmt(c.now, 2)} (baseline ${fmt(c.baseline, 2)})`).join('; ')}`,
    ...rose.map((c) =>
      c.loadDependent
        ? `ROSE above the baseline: ${c.figure} ${fmt(c.now, 2)} > ${fmt(c.baseline, 2)} (CPU and memory: meaningful only on a quiet machine; the pass ended at load ${fmt(load1, 1)})`
        : `ROSE above the baseline: ${c.figure} ${fmt(c.now, 2)} > ${fmt(c.baseline, 2)} (a count: the same on any machine for the same code)`,
    ),
  ];
}

export function renderReport(r: BenchResults): string {
  const la = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const header = [
    `kraken-migrate bench (${r.mode}) — ${r.startedAt}`,
    `command:  ${r.command}`,
    `machine:  ${r.machine.cpuModel}, ${r.machine.cores} cores, ${fmt(r.machine.memoryGb, 1)} GB, ${r.machine.platform} ${r.machine.kernel}`,
    `versions: node ${r.versions.node}; Temporal CLI ${r.versions.temporalCli}; @temporalio/* ${r.versions.temporalio}`,
    `settings: sandbox latency 0, processing delay 0, events on (route: ${r.eventsRoute === 'both' ? 'webhook and SQS, each event twice' : r.eventsRoute === 'sqs' ? 'SQS' : 'webhook'}), OUTCOME_EVENT_WAIT_SECONDS=${r.eventWaitSeconds}${r.readBack ? '' : ', the pipeline reads no account back (--no-read-back)'}`,
    `load avg: ${la(r.load.atStart)} at start, ${la(r.load.atEnd)} at end (1/5/15 min; the machine is shared)`,
  ];
  const footer = [
    ...baselineLines(r.baseline, r.endToEnd.loadAvg1),
    ...(r.skipped.length ? [`skipped: ${r.skipped.join('; ')}`] : []),
    ...r.notes.map((n) => `note: ${n}`),
    r.ok ? 'OK: every account of every pass completed' : 'NOT OK: some accounts did not complete',
  ];
  return [...header, '', renderTable(resultRows(r)), '', ...footer].join('\n');
}
