import { loadCliContext, withServices } from '../../../cli/context';
import { usageError } from '../../../cli/errors';
import { printJson, println } from '../../../cli/output';
import { newRunId, RUN_ID_PATTERN } from '../../../cli/run-id';
import { seedRun, type SeededRun } from '../../seed/seed-ledger';
import { seedRefusal } from '../seed-target';

export async function seedLedgerAction(opts: {
  accounts: number;
  runs: number;
  runId?: string;
  supplier?: string;
  force?: boolean;
  json?: boolean;
}): Promise<void> {
  const ctx = loadCliContext();
  const refusal = seedRefusal(ctx.cfg);
  if (refusal && !opts.force) throw usageError('not_a_local_ledger', `refusing to seed: ${refusal}; --force seeds anyway (never a ledger real runs write to)`);
  if (opts.runs > opts.accounts) throw usageError('invalid_runs', `--runs ${opts.runs}: at most --accounts (${opts.accounts}) runs`);
  const base = opts.runId ?? newRunId().replace(/^run-/, 'seed-');
  if (!RUN_ID_PATTERN.test(base)) throw usageError('invalid_run_id', `--run-id ${JSON.stringify(base)}: letters, digits, '.', '_' and '-' only`);
  const ids = opts.runs === 1 ? [base] : Array.from({ length: opts.runs }, (_, k) => `${base}-${k + 1}`);
  const seeded: SeededRun[] = [];
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    const schema = await pool.query(`select to_regclass('migrate.account_attempts') as t`);
    if (!schema.rows[0].t) throw usageError('ledger_not_migrated', 'the ledger has no migrate.account_attempts: run `kraken-migrate db migrate` first');
    const taken = await pool.query(`select run_id from migrate.runs where run_id = any($1)`, [ids]);
    if (taken.rowCount) throw usageError('run_exists', `run ${taken.rows[0].run_id} is already in the ledger: choose another --run-id`);
    for (const [k, runId] of ids.entries()) {
      const accounts = Math.floor(opts.accounts / opts.runs) + (k < opts.accounts % opts.runs ? 1 : 0);
      const started = Date.now();
      const r = await seedRun(pool, { runId, supplierCode: opts.supplier ?? ctx.cfg.IMPORT_SUPPLIER_CODE, accounts });
      seeded.push(r);
      if (!opts.json) {
        const o = r.byOutcome;
        println(
          `Seeded ${runId}: ${accounts} accounts in ${((Date.now() - started) / 1000).toFixed(1)} s (completed ${(o.completed ?? 0) + (o.completed_with_differences ?? 0)}, ` +
            `of which with differences ${o.completed_with_differences ?? 0}; failed ${o.failed ?? 0}; not attempted ${o.not_attempted ?? 0}; in progress ${o.in_progress ?? 0})`,
        );
      }
    }
    // Statistics and visibility as autovacuum leaves them shortly after a run, so the commands
    // timed next plan (and scan indexes only) as they would on a real ledger.
    await pool.query(
      'vacuum (analyze) migrate.runs, migrate.account_attempts, migrate.account_errors, migrate.reconciliations, migrate.reconciliation_differences',
    );
  });
  if (opts.json) printJson({ runs: seeded });
}
