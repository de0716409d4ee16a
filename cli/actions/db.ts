// What `kraken-migrate db …` does. cli/commands/db.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import path from 'node:path';
import { COMPONENTS, migrate } from '../../db/migrate';
import { loadCliContext, ROOT, withServices } from '../context';
import { printJson, println } from '../output';

type Component = keyof typeof COMPONENTS;

export async function migrateAction(opts: { component: Component[]; json?: boolean }): Promise<void> {
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
}
