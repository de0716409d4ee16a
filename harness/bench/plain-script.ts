import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import { createS3Client } from '../../clients/aws';
import { createPool } from '../../clients/db';
import { tariffsOf } from '../../source/catalogue-check';
import { createPlatformClient } from '../../clients/platform';
import { getConfig, type Config } from '../../config';
import { taskParams } from '../../activities/schedule';
import { stageDocument } from '../../activities/documents';
import type { CountryCode } from '../../schemas/formats';
import { validateAccount } from '../../schemas/validate';
import { createSourceAdapter } from '../../source/adapter';
import { defaultMapping } from '../../source/mapping';
import { transformAccount } from '../../source/transform';
import type { ScriptRun } from './results';
import { percentile, round } from './stats';
import { slidingWindow } from './window';

/**
 * The baseline: what a team might write instead of the pipeline. A concurrent Node script, no
 * Temporal and no ledger: per account it reads the source, transforms, validates, checks tariffs,
 * uploads the documents, schedules the import and polls its status until the platform is done.
 * Same clients and calls as the pipeline; nothing durable (a crash loses the run's state).
 */

/**
 * One account's end in the script: completed (with the platform's account number and the payload
 * sent, when the status gave the number: what a read-back would check), or the first code that stopped it.
 */
export type ScriptOutcome = { ok: true; accountNumber?: string; payload?: unknown } | { ok: false; code: string };

const TERMINAL = new Set(['PROCESSED', 'ERRORED', 'CANCELLED']);

export interface ScriptMigrator {
  migrate(ext: string): Promise<ScriptOutcome>;
  close(): Promise<void>;
}

/**
 * The script's work for one account, with its clients opened once. The bench's ceiling pass runs
 * the same function as a single Temporal activity, so both passes do exactly the same work.
 */
export function createScriptMigrator(cfg: Config, poolSize: number, poll: { startMs?: number; maxMs?: number } = {}): ScriptMigrator {
  const pool = createPool(cfg.DATABASE_URL!, poolSize);
  const s3 = createS3Client(cfg);
  const platform = createPlatformClient(cfg);
  const tariffs = platform.tariffPreflight();
  const source = createSourceAdapter({ kind: 'postgres' }, { pool });
  const mapping = defaultMapping();
  const region = cfg.PHONE_DEFAULT_REGION as CountryCode;
  const pollStart = poll.startMs ?? 100;
  const pollMax = poll.maxMs ?? 2000;

  const migrate = async (ext: string): Promise<ScriptOutcome> => {
    const src = await source.getAccount(ext);
    if (!src) return { ok: false, code: 'source_account_not_found' };
    const t = transformAccount(src, { importSupplierCode: cfg.IMPORT_SUPPLIER_CODE, mapping, defaultRegion: cfg.PHONE_DEFAULT_REGION });
    if (!t.ok) return { ok: false, code: t.errors[0].code };
    const v = validateAccount(t.payload, { defaultRegion: region });
    if (!v.ok) return { ok: false, code: v.errors[0].code };
    // The same tariff pre-flight as the pipeline: it notes, never refuses.
    await tariffs.check(tariffsOf(v.value));
    for (const doc of t.documents) {
      const r = await stageDocument({
        s3,
        bucket: cfg.PLATFORM_BUCKET,
        documentRoot: cfg.IMPORT_SUPPLIER_DOCUMENT_ROOT,
        sourceDir: cfg.SOURCE_DOCUMENTS_DIR,
        doc,
        partSizeBytes: cfg.MULTIPART_THRESHOLD_BYTES,
      });
      if (!r.ok) return { ok: false, code: r.code };
    }
    const scheduled = await platform.scheduleAccountCreation({ payload: v.value, task_params: taskParams({ hours: 24 }, false, new Date()) });
    if (scheduled.kind === 'already_imported') return { ok: true };
    if (scheduled.kind !== 'accepted') return { ok: false, code: scheduled.kind };
    for (let delay = pollStart; ; delay = Math.min(delay * 2, pollMax)) {
      await new Promise((r) => setTimeout(r, delay));
      const s = await platform.getImportStatus(cfg.IMPORT_SUPPLIER_CODE, ext);
      if (s && TERMINAL.has(s.status))
        return s.status === 'PROCESSED'
          ? { ok: true, accountNumber: s.kraken_identifier ?? undefined, payload: v.value }
          : { ok: false, code: `import_${s.status.toLowerCase()}` };
    }
  };

  const close = async () => {
    await source.close();
    await pool.end();
    s3.destroy();
  };
  return { migrate, close };
}

export async function runPlainScript(opts: {
  config: Config;
  accounts: readonly string[];
  concurrency: number;
  pollStartMs?: number;
  pollMaxMs?: number;
}): Promise<Omit<ScriptRun, 'peakRssMb'>> {
  const migrator = createScriptMigrator(opts.config, Math.min(opts.concurrency, 20), { startMs: opts.pollStartMs, maxMs: opts.pollMaxMs });
  const latencies: number[] = [];
  const timed = async (ext: string): Promise<ScriptOutcome> => {
    const t0 = performance.now();
    try {
      const out = await migrator.migrate(ext);
      // The script keeps every account's end until the pass is over: not the payload it sent.
      return out.ok ? { ok: true } : out;
    } finally {
      latencies.push(performance.now() - t0);
    }
  };

  const started = performance.now();
  const results = await slidingWindow(opts.accounts, opts.concurrency, timed);
  const wallS = (performance.now() - started) / 1000;
  await migrator.close();

  const failedByCode: Record<string, number> = {};
  let completed = 0;
  for (const r of results) {
    if (r.ok && r.value.ok) completed++;
    else {
      const code = r.ok ? (r.value as { code: string }).code : ((r.error as { code?: string }).code ?? 'script_error');
      failedByCode[code] = (failedByCode[code] ?? 0) + 1;
    }
  }
  const ms = (p: number) => {
    const v = percentile(latencies, p);
    return v === undefined ? undefined : Math.round(v);
  };
  return {
    accounts: opts.accounts.length,
    concurrency: opts.concurrency,
    completed,
    notCompleted: opts.accounts.length - completed,
    wallSeconds: round(wallS, 2),
    accountsPerSecond: round(completed / wallS, 2),
    latency: { p50Ms: ms(50), p95Ms: ms(95), maxMs: ms(100) },
    loadAvg1: round(os.loadavg()[0], 2),
    failedByCode,
  };
}

// Run by bench/run.ts as its own process (as a team would run it), configured by the stack's
// environment: `npx tsx harness/bench/plain-script.ts --list accounts.txt --concurrency 50`. Prints one JSON line.
if (require.main === module) {
  const program = new Command()
    .requiredOption('--list <file>', 'file with one external account number a line')
    .option('--concurrency <n>', 'accounts in flight', (v) => Number.parseInt(v, 10), 50)
    .parse();
  const o = program.opts<{ list: string; concurrency: number }>();
  const accounts = fs
    .readFileSync(o.list, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  runPlainScript({ config: getConfig(), accounts, concurrency: o.concurrency })
    .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
    .catch((e: unknown) => {
      process.stderr.write(`plain script failed: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    });
}
