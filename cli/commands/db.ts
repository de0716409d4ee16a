import path from 'node:path';
import { Command, Option } from 'commander';
import { COMPONENTS, migrate } from '../../db/migrate';
import { loadCliContext, ROOT, withServices } from '../context';
import { printJson, println } from '../output';

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
  return db;
}
