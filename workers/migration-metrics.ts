import type { Client } from '@temporalio/client';
import { Gauge, type Registry } from 'prom-client';
import type { Pool } from '../clients/db';
import type { Config } from '../config';
import type { PlanStatus, WaveState } from '../domain/plan-messages';
import { planStatusQuery } from '../domain/plan-messages';
import { KmRunId, KmSupplier } from '../domain/search-attributes';
import { gateWaitingSince, openWindowEnd, projectedEnd, remainingAccounts } from '../domain/wave-projection';
import { readLedgerMetrics, type LedgerMetrics } from '../ledger/metrics';

/** Every state a wave can be in: each is a series (1 for the wave's state, 0 for the rest), so a change is a change of value. */
const WAVE_STATES: readonly WaveState[] = [
  'pending',
  'dry_run',
  'dry_run_not_met',
  'waiting_entry_sign_off',
  'waiting_window',
  'running',
  'capped',
  'stopped_line',
  'out_of_windows',
  'waiting_supply',
  'exit_not_met',
  'waiting_exit_sign_off',
  'completed',
  'skipped',
  'cancelled',
];

/** How long a scrape waits for Temporal (the list of running runs and plans, each plan's status) before serving the ledger's part alone. */
const TEMPORAL_WAIT_MS = 3000;

interface Temporal {
  stopLines: Array<{ run: string; supplier: string; tripped: boolean; code: string }>;
  plans: Array<{ status: PlanStatus; startedAt: number }>;
}

interface Snapshot {
  ledger: LedgerMetrics;
  temporal: Temporal | undefined;
  at: number;
}

/**
 * The migration's own metrics, prefixed `kraken_migrate_`, read when Prometheus scrapes: the ledger's
 * counters (so every worker serves the same numbers) and, from Temporal, each running run's stop the
 * line (its memo) and each running plan's status (its query). Labels are run, wave, supplier,
 * outcome, code (the catalogue's), source, field: never an account number or a person.
 */
export function registerMigrationMetrics(
  registry: Registry,
  deps: { pool: Pool; temporal: () => Promise<Client>; config: Pick<Config, 'METRICS_RATE_WINDOW_MINUTES'> },
) {
  const recentMinutes = deps.config.METRICS_RATE_WINDOW_MINUTES;
  // One read per scrape, shared by every family (prom-client collects them one after another).
  let pending: Promise<Snapshot> | undefined;
  const snapshot = (): Promise<Snapshot> => {
    pending ??= (async () => {
      const [ledger, temporal] = await Promise.all([readLedgerMetrics(deps.pool, recentMinutes), readTemporal(deps.temporal).catch(() => undefined)]);
      return { ledger, temporal, at: Date.now() };
    })().finally(() => setTimeout(() => (pending = undefined), 250).unref());
    return pending;
  };

  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, s: Snapshot) => void) =>
    new Gauge({
      name: `kraken_migrate_${name}`,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const s = await snapshot();
        this.reset();
        fill(this, s);
      },
    });

  gauge(
    'accounts',
    'Accounts with a recorded outcome, by run, supplier, outcome and error code (the ledger).',
    ['run', 'supplier', 'outcome', 'code'],
    (g, s) => {
      for (const [k, n] of sum(s.ledger.outcomes, (r) => [r.run, r.supplier, r.outcome, r.code]))
        g.set({ run: k[0], supplier: k[1], outcome: k[2], code: k[3] }, n);
    },
  );
  gauge('accounts_in_flight', 'Accounts started and without an outcome yet, by run.', ['run', 'supplier'], (g, s) => {
    for (const r of s.ledger.inFlight) g.set({ run: r.run, supplier: r.supplier }, r.n);
  });
  gauge('accounts_not_attempted', 'Accounts recorded not attempted (a run cancelled, a supplier completed), by run.', ['run', 'supplier'], (g, s) => {
    for (const [k, n] of sum(
      s.ledger.outcomes.filter((r) => r.outcome === 'not_attempted'),
      (r) => [r.run, r.supplier],
    ))
      g.set({ run: k[0], supplier: k[1] }, n);
  });
  gauge(
    'outcomes_learned',
    'Finished accounts by how their outcome was learnt (event, poll: the event was late or lost, local, ...).',
    ['run', 'supplier', 'source'],
    (g, s) => {
      for (const [k, n] of sum(s.ledger.outcomes, (r) => [r.run, r.supplier, r.source || 'none'])) g.set({ run: k[0], supplier: k[1], source: k[2] }, n);
    },
  );
  gauge('run_finished_recent', `Accounts a run finished in the last METRICS_RATE_WINDOW_MINUTES minutes (the current one included).`, ['run'], (g, s) => {
    for (const r of s.ledger.recentFinished) g.set({ run: r.run }, r.n);
  });
  gauge('platform_window_size', "The adaptive window of accounts in processing at the tenant (PLATFORM_PACE's).", ['tenant'], (g, s) => {
    for (const p of s.ledger.platform) g.set({ tenant: p.tenant }, p.window);
  });
  gauge('platform_in_processing', 'Accounts the tenant accepted and is processing (permits held).', ['tenant'], (g, s) => {
    for (const p of s.ledger.platform) g.set({ tenant: p.tenant }, p.inProcessing);
  });
  new Gauge({
    name: 'kraken_migrate_platform_calls_total',
    help: 'Schedule calls to the tenant by answer: accepted, throttled (429), server_error (5xx). The throttled share is rate(throttled) over rate(all).',
    labelNames: ['tenant', 'answer'],
    registers: [registry],
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const p of s.ledger.platform) {
        this.set({ tenant: p.tenant, answer: 'accepted' }, p.accepted);
        this.set({ tenant: p.tenant, answer: 'throttled' }, p.throttled);
        this.set({ tenant: p.tenant, answer: 'server_error' }, p.serverErrors);
      }
    },
  });
  for (const [kind, what] of [
    ['differing', 'whose read-back differs from what was sent'],
    ['unverified', 'whose field could not be read back'],
  ] as const)
    gauge(`reconciliation_${kind}_accounts`, `Reconciled accounts ${what}, by run and field.`, ['run', 'supplier', 'field'], (g, s) => {
      for (const r of s.ledger.reconciliation) if (r[kind]) g.set({ run: r.run, supplier: r.supplier, field: r.field }, r[kind]);
    });
  gauge('post_import_items', 'Changes after import (notes, transactions, statements, payment instructions) by run and status.', ['run', 'status'], (g, s) => {
    for (const r of s.ledger.postImport) g.set({ run: r.run, status: r.status }, r.n);
  });
  gauge('temporal_answered', '1 when this scrape read the running runs and plans from Temporal, 0 when it answered from the ledger alone.', [], (g, s) => {
    g.set(s.temporal ? 1 : 0);
  });
  gauge(
    'stop_line_tripped',
    "1 while a running run's stop the line has tripped (its dispatch paused), with the code that tripped it.",
    ['run', 'supplier', 'code'],
    (g, s) => {
      for (const r of s.temporal?.stopLines ?? []) g.set({ run: r.run, supplier: r.supplier, code: r.code }, r.tripped ? 1 : 0);
    },
  );
  gauge('plan_wave_state', "Each running plan wave's state: 1 for the state it is in, 0 for the others.", ['plan', 'wave', 'state'], (g, s) => {
    for (const { status } of s.temporal?.plans ?? [])
      for (const w of status.waves) for (const st of WAVE_STATES) g.set({ plan: status.id, wave: w.name, state: st }, w.state === st ? 1 : 0);
  });
  gauge('plan_wave_accounts_remaining', "Accounts of a plan wave's cohort still to finish (waves whose cohort was counted).", ['plan', 'wave'], (g, s) => {
    for (const { status } of s.temporal?.plans ?? [])
      for (const w of status.waves) {
        const left = remainingAccounts(w);
        if (left !== undefined) g.set({ plan: status.id, wave: w.name }, left);
      }
  });
  gauge('plan_window_end_timestamp_seconds', "The end of a plan wave's window open now (Unix seconds).", ['plan', 'wave'], (g, s) => {
    for (const { status } of s.temporal?.plans ?? [])
      for (const w of status.waves) {
        const end = openWindowEnd(w.windows, s.at);
        if (end !== undefined) g.set({ plan: status.id, wave: w.name }, end / 1000);
      }
  });
  gauge(
    'plan_wave_projected_end_timestamp_seconds',
    "When a running plan wave finishes at its run's rate over the last METRICS_RATE_WINDOW_MINUTES (Unix seconds).",
    ['plan', 'wave'],
    (g, s) => {
      const recent = new Map(s.ledger.recentFinished.map((r) => [r.run, r.n]));
      for (const { status } of s.temporal?.plans ?? [])
        for (const w of status.waves) {
          if (w.state !== 'running') continue;
          const run = w.runs.at(-1);
          const perSecond = (run === undefined ? 0 : (recent.get(run) ?? 0)) / (recentMinutes * 60);
          const end = projectedEnd(remainingAccounts(w), perSecond, s.at);
          if (end !== undefined) g.set({ plan: status.id, wave: w.name }, end / 1000);
        }
    },
  );
  gauge('plan_gate_waiting_seconds', "How long a plan wave's entry or exit gate has waited for its sign-off.", ['plan', 'wave', 'gate'], (g, s) => {
    const finished = (run: string) => s.ledger.runsFinishedAt.get(run)?.getTime() ?? undefined;
    for (const { status, startedAt } of s.temporal?.plans ?? []) {
      const byName = new Map(status.waves.map((w) => [w.name, w]));
      status.waves.forEach((w, i) => {
        const before = (w.after ?? (i > 0 ? [status.waves[i - 1].name] : [])).flatMap((n) => byName.get(n) ?? []);
        for (const gate of ['entry', 'exit'] as const) {
          const since = gateWaitingSince(w, gate, { planStart: startedAt, before, runFinishedAt: finished });
          if (since !== undefined) g.set({ plan: status.id, wave: w.name, gate }, Math.max(0, (s.at - since) / 1000));
        }
      });
    }
  });
}

/** Sums `n` over rows with the same key. */
function sum<T extends { n: number }>(rows: T[], key: (r: T) => string[]): Array<[string[], number]> {
  const m = new Map<string, [string[], number]>();
  for (const r of rows) {
    const k = key(r);
    const id = k.join('\u0000');
    const e = m.get(id);
    if (e) e[1] += r.n;
    else m.set(id, [k, r.n]);
  }
  return [...m.values()];
}

/** Running runs' stop the line (their memo) and running plans' status (their query), within TEMPORAL_WAIT_MS. */
async function readTemporal(connect: () => Promise<Client>): Promise<Temporal> {
  const read = async (): Promise<Temporal> => {
    const client = await connect();
    const stopLines: Temporal['stopLines'] = [];
    for await (const wf of client.workflow.list({ query: `(KmKind = 'run' OR KmKind = 'dry-run') AND ExecutionStatus = 'Running'` })) {
      const memo = (wf.memo ?? {}) as { stopLine?: { code?: string } | null };
      const run = wf.typedSearchAttributes.get(KmRunId) ?? wf.workflowId;
      const supplier = wf.typedSearchAttributes.get(KmSupplier) ?? '';
      stopLines.push({ run, supplier, tripped: !!memo.stopLine, code: memo.stopLine?.code ?? '' });
    }
    const plans: Temporal['plans'] = [];
    for await (const wf of client.workflow.list({ query: `WorkflowType = 'cutoverPlanWorkflow' AND ExecutionStatus = 'Running'` })) {
      const status = await client.workflow.getHandle(wf.workflowId).query(planStatusQuery);
      plans.push({ status, startedAt: wf.startTime.getTime() });
    }
    return { stopLines, plans };
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('temporal did not answer in time')), TEMPORAL_WAIT_MS)));
  try {
    return await Promise.race([read(), late]);
  } finally {
    clearTimeout(timer);
  }
}
