import path from 'node:path';
import { Command, Option } from 'commander';
import { COMPONENTS, migrate } from '../../db/migrate';
import { loadCliContext, ROOT, withServices } from '../context';
import { usageError } from '../errors';
import { printJson, println, positiveInt } from '../output';
import { newRunId, RUN_ID_PATTERN } from '../run-id';
import { seedRefusal } from '../seed-target';
import { seedRun, type SeededRun } from '../../ledger/seed-ledger';
import { SEED_MIX } from '../../ledger/seed-mix';

type Component = keyof typeof COMPONENTS;

export function dbCommand(): Command {
  const db = new Command('db').description('the ledger database');
  db.command('migrate')
    .description('apply the database migrations (idempotent): run once before any worker starts')
    .addOption(
      new Option('--component <name...>', 'what to migrate: the ledger (production), the synthetic legacy source and the sandbox (development)')
        .choices(Object.keys(COMPONENTS))
        .default(['ledger']),
    )
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
Needs DATABASE_URL. docker-compose.yml runs it as the one-shot ledger-migrations service; the
embedded stack applies every component itself.

Examples:
  $ kraken-migrate db migrate
  $ kraken-migrate db migrate --component ledger legacy sandbox --json`,
    )
    .action(async (opts: { component: Component[]; json?: boolean }) => {
      const ctx = loadCliContext();
      // Connects first, so an unset or unreachable DATABASE_URL gets the CLI's coded error.
      await withServices(ctx, (s) => s.db());
      const applied: Record<string, string[]> = {};
      for (const name of opts.component) {
        const c = COMPONENTS[name];
        applied[name] = await migrate(ctx.cfg.DATABASE_URL!, { ...c, dir: path.join(ROOT, c.dir) });
      }
      if (opts.json) return printJson({ applied });
      for (const [name, list] of Object.entries(applied)) {
        println(`${name}: ${list.length === 0 ? 'up to date' : `applied ${list.join(', ')}`}`);
      }
    });
  db.addCommand(seedLedgerCommand());
  return db;
}

const share = (perTenThousand: number) => `${(perTenThousand / 100).toFixed(perTenThousand % 100 === 0 ? 0 : perTenThousand % 10 === 0 ? 1 : 2)}%`;

function mixHelp(): string {
  return SEED_MIX.map(
    (s) =>
      `  ${share(s.perTenThousand).padStart(6)}  ${s.outcome ?? 'in progress'} at ${s.stage}${s.code ? `: ${s.code}` : ''}${s.attr ? ` (${s.attr})` : ''}${s.outcome === 'completed' ? `, learned by ${s.source}` : ''}`,
  ).join('\n');
}

function seedLedgerCommand(): Command {
  return new Command('seed-ledger')
    .description('development only: bulk-load N fake account attempts into a local ledger, to time operator commands at scale')
    .requiredOption('--accounts <n>', 'attempts to write (split evenly over --runs)', positiveInt('--accounts'))
    .option('--runs <k>', 'how many runs', positiveInt('--runs'), 1)
    .option('--run-id <id>', 'run id (default seed-YYYYMMDD-HHMMSS-xxxx); with --runs K: <id>-1 … <id>-K')
    .option('--supplier <code>', 'supplier code (default: IMPORT_SUPPLIER_CODE)')
    .option('--force', 'seed even though the ledger does not look local (see below)')
    .option('--json', 'print the seeded runs and their mix as JSON')
    .addHelpText(
      'after',
      `
Writes runs, attempts, their errors, and the reconciliation of every completed account, in one
transaction per run, on the server (insert … select from generate_series). The accounts'
outcomes, spread over the account numbers (<prefix>-00000001 …):
${mixHelp()}

It refuses (exit 2, nothing written) a ledger that does not look like a local development one:
KRAKEN_MIGRATE_MODE=production, a DATABASE_URL whose host is not 127.0.0.1 / ::1 / localhost, or
platform URLs that name a tenant rather than the local sandbox. --force overrides that check; never
use it against a ledger that real runs write to. Needs the ledger migrated (\`db migrate\`).

Examples:
  $ kraken-migrate db seed-ledger --accounts 1000000
  $ DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/kraken_migrate kraken-migrate db seed-ledger --accounts 200000 --runs 4 --run-id big`,
    )
    .action(async (opts: { accounts: number; runs: number; runId?: string; supplier?: string; force?: boolean; json?: boolean }) => {
      const ctx = loadCliContext();
      const refusal = seedRefusal(ctx.cfg);
      if (refusal && !opts.force)
        throw usageError('not_a_local_ledger', `refusing to seed: ${refusal}; --force seeds anyway (never a ledger real runs write to)`);
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
    });
}
