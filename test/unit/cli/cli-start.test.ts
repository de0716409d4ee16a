import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The packages a command's implementation needs and its declaration must not load: every
 * `kraken-migrate … --help` and the start of every command would pay for them (cli/program.ts).
 */
const HEAVY = ['@temporalio/', '@aws-sdk/', 'pg', 'zod', 'yaml', 'libphonenumber-js', 'rxjs', 'pino', 'node-pg-migrate', 'cli-progress'];

/** Builds the command tree in a fresh process, as bin/kraken-migrate.js does, and lists the packages it loaded. */
function packagesLoadedByDeclaring(): string[] {
  return packagesLoadedBy(`require('./cli/program.ts').buildProgram();`);
}

/** The packages a fresh process has loaded after `code` (run with tsx's CommonJS hook, as bin/kraken-migrate.js runs the CLI). */
function packagesLoadedBy(code: string): string[] {
  const script = `
    require('tsx/cjs');
    ${code}
    const pkgs = new Set();
    for (const f of Object.keys(require.cache)) {
      const m = f.match(/node_modules\\/((@[^/]+\\/)?[^/]+)/);
      if (m) pkgs.add(m[1]);
    }
    process.stdout.write(JSON.stringify([...pkgs]));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as string[];
}

describe('declaring the CLI', () => {
  it('loads commander, not the services, schemas or SDKs the commands use', () => {
    const loaded = packagesLoadedByDeclaring();
    expect(loaded).toContain('commander');
    expect(loaded.filter((p) => HEAVY.some((h) => (h.endsWith('/') ? p.startsWith(h) : p === h)))).toEqual([]);
  });
});

describe('the ledger-only commands', () => {
  // The Temporal SDK (its protobuf definitions above all) costs a command more than half a second to
  // load: the lists and the report's ledger part never load it (the report does for a run still going).
  it.each([
    ['run rerun-failed --list and run reconcile --list', './cli/actions/ledger-lists.ts'],
    ['report', './cli/report/build.ts'],
    ['report --summary', './cli/report/summary.ts'],
    // run status asks Temporal beside the ledger: its SDK loads only when asked (cli/run-status-temporal.ts).
    ['run status, before it asks Temporal', './cli/actions/run-status.ts'],
  ])('%s load no Temporal package', (_, module) => {
    const loaded = packagesLoadedBy(`require('${module}');`);
    expect(loaded).toContain('pg');
    expect(loaded.filter((p) => p.startsWith('@temporalio/'))).toEqual([]);
  });
});
