import { Command } from 'commander';
import { positiveInt } from '../../../cli/output';
import { SEED_MIX } from '../../seed/seed-mix';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when an action runs (cli/program.ts says why)
const seedLedgerActions = (): typeof import('../actions/seed-ledger') => require('../actions/seed-ledger');

const share = (perTenThousand: number) => `${(perTenThousand / 100).toFixed(perTenThousand % 100 === 0 ? 0 : perTenThousand % 10 === 0 ? 1 : 2)}%`;

function mixHelp(): string {
  return SEED_MIX.map(
    (s) =>
      `  ${share(s.perTenThousand).padStart(6)}  ${s.outcome ?? 'in progress'} at ${s.stage}${s.code ? `: ${s.code}` : ''}${s.attr ? ` (${s.attr})` : ''}${s.outcome === 'completed' ? `, learned by ${s.source}` : ''}`,
  ).join('\n');
}

export function seedLedgerCommand(): Command {
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
    .action(async (opts: { accounts: number; runs: number; runId?: string; supplier?: string; force?: boolean; json?: boolean }) =>
      seedLedgerActions().seedLedgerAction(opts),
    );
}
