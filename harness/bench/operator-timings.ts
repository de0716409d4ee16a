/**
 * The rehearsal's operator-command timing step alone (rehearsal/operator-timings.ts), against the
 * ledger and Temporal you point it at: seeds a run of `--rows` attempts with `kraken-migrate db
 * seed-ledger` and times each command's ledger part and the whole command (docs/throughput.md).
 * No accounts are migrated: this is the `--ledger-rows` step of `npm run rehearsal` without the run before it.
 *
 *   DATABASE_URL=… TEMPORAL_ADDRESS=… npx tsx harness/bench/operator-timings.ts --rows 1000000 [--dir /tmp/reports] [--root ../other-checkout] [--reuse]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { timeOperatorCommands } from '../rehearsal/operator-timings';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rows: { type: 'string', default: '1000000' }, dir: { type: 'string' }, root: { type: 'string' }, reuse: { type: 'boolean', default: false } },
  });
  const rows = Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`--rows ${values.rows}: a positive whole number`);
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set: the ledger to seed and time against');
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  // --root: another checkout's commands and ledger part (its `main`, for a before-and-after), seeded by this one's.
  const root = path.resolve(values.root ?? path.join(__dirname, '../..'));
  const dir = values.dir ?? path.join(os.tmpdir(), `operator-timings-${process.pid}`);
  const log = (l: string) => process.stdout.write(`${l}\n`);
  log(
    `load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (1, 5, 15 min) on ${os.cpus().length} cores; ${values.reuse ? 'the run seeded before' : 'seeding'}: ${rows} attempts`,
  );
  const timings = await timeOperatorCommands({ env }, rows, { root, dir, log, reuse: values.reuse });
  log(
    `load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} after`,
  );
  process.stdout.write(`${JSON.stringify(timings)}\n`);
}

main().catch((e: Error) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
});
