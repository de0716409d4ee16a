// What `kraken-migrate db …` does. cli/commands/db.ts declares the command (options, help) and loads this module only when
// the action runs, so the CLI starts without this module's dependencies.
import { optionsSchema, parseOptions } from '../option-schema';
import { MIGRATE_OPTIONS, PURGE_OPTIONS } from '../options/commands';
import path from 'node:path';
import { APP_ROLE, COMPONENTS, migrate, setAppRolePassword } from '../../db/migrate';
import { loadCliContext, ROOT, withServices } from '../context';
import { printJson, println } from '../output';
import { usageError } from '../errors';
import { purgeInboxOlderThan, purgeRun, PurgeRefused, runsPastRetention, type PurgedRun } from '../../ledger/purge';

const migrateOptionsSchema = optionsSchema(MIGRATE_OPTIONS);

export async function migrateAction(options: unknown): Promise<void> {
  const opts = parseOptions(migrateOptionsSchema, options);
  const ctx = loadCliContext();
  // Connects first, so an unset or unreachable DATABASE_URL gets the CLI's coded error.
  await withServices(ctx, (s) => s.db());
  const applied: Record<string, string[]> = {};
  for (const name of opts.component) {
    const c = COMPONENTS[name];
    applied[name] = await migrate(ctx.cfg.DATABASE_URL!, { ...c, dir: path.join(ROOT, c.dir) });
  }
  const appRole = ctx.cfg.KRAKEN_MIGRATE_APP_DB_PASSWORD ? APP_ROLE : undefined;
  if (ctx.cfg.KRAKEN_MIGRATE_APP_DB_PASSWORD) await setAppRolePassword(ctx.cfg.DATABASE_URL!, ctx.cfg.KRAKEN_MIGRATE_APP_DB_PASSWORD);
  if (opts.json) return printJson({ applied, ...(appRole ? { loginEnabledFor: appRole } : {}) });
  if (appRole) println(`${appRole}: can log in (KRAKEN_MIGRATE_APP_DB_PASSWORD)`);
  for (const [name, list] of Object.entries(applied)) {
    println(`${name}: ${list.length === 0 ? 'up to date' : `applied ${list.join(', ')}`}`);
  }
}

/** `kraken-migrate db purge` (declared in cli/commands/db.ts). */
const purgeOptionsSchema = optionsSchema(PURGE_OPTIONS).refine((o) => !(o.run && o.olderThanDays !== undefined), {
  path: ['olderThanDays'],
  message: 'goes without --run: they select differently, give one',
});

export async function purgeAction(options: unknown): Promise<void> {
  const opts = parseOptions(purgeOptionsSchema, options);
  const ctx = loadCliContext();
  const days = opts.run ? undefined : (opts.olderThanDays ?? ctx.cfg.LEDGER_RETENTION_DAYS);
  if (!opts.run && days === undefined) {
    throw usageError('purge_nothing_selected', 'name runs with --run, or an age with --older-than-days or LEDGER_RETENTION_DAYS');
  }
  await withServices(ctx, async (s) => {
    const pool = await s.db();
    const runs = opts.run ?? (await runsPastRetention(pool, days!));
    if (opts.dryRun) {
      if (opts.json) return printJson({ dryRun: true, olderThanDays: days ?? null, runs });
      println(runs.length ? `Would purge ${runs.length} run(s): ${runs.join(', ')}` : 'Nothing to purge.');
      return;
    }
    const purged: PurgedRun[] = [];
    for (const runId of runs) {
      try {
        purged.push(await purgeRun(pool, runId));
      } catch (e) {
        if (e instanceof PurgeRefused) throw usageError(e.code, e.message);
        throw e;
      }
    }
    const inboxEvents = days === undefined ? 0 : await purgeInboxOlderThan(pool, days);
    if (opts.json) return printJson({ olderThanDays: days ?? null, purged, inboxEventsOlderThanRetention: inboxEvents });
    if (purged.length === 0) println('No run to purge.');
    for (const p of purged) {
      println(
        `Purged run ${p.runId}: ${p.payloads} payload(s), ${p.errorDetails} error detail(s), ${p.differences} difference(s), ${p.inboxEvents} event delivery(ies), ${p.postImportItems} carried-over item(s).`,
      );
    }
    if (days !== undefined) println(`Event deliveries older than ${days} day(s) emptied: ${inboxEvents}.`);
  });
}
