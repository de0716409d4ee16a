import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { catalogueTariffCodes } from '../sandbox/catalogue';
import { getConfig } from '../../config';
import { minimalAccountPayload } from '../sandbox/fixtures';

/**
 * Schedule-request throughput of a running sandbox: `requests` valid, distinct
 * `POST /v2/data-import/accounts/` calls, `concurrency` in flight, over keep-alive connections.
 * (node:http rather than undici: undici is not among the installed packages; Node's own fetch is
 * slower per request than a keep-alive agent.)
 */
export interface BenchSandboxOptions {
  baseUrl: string;
  apiKey: string;
  requests?: number;
  concurrency?: number;
  supplier?: string;
}

export interface BenchSandboxResult {
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  /** Requests not answered 201. */
  failed: number;
}

function account(supplier: string, ext: string, tariff: string) {
  const now = Date.now();
  return {
    payload: minimalAccountPayload({ supplier, externalAccountNumber: ext, tariffCode: tariff }),
    // No start: it defaults to "now" on arrival, so pre-built bodies never start in the past.
    task_params: { is_dry_run: false, schedule_window_end: new Date(now + 24 * 3_600_000).toISOString() },
  };
}

function post(agent: http.Agent, url: URL, auth: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: auth } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

export async function benchSandbox(opts: BenchSandboxOptions): Promise<BenchSandboxResult> {
  const requests = opts.requests ?? 2000;
  const concurrency = opts.concurrency ?? 32;
  const supplier = opts.supplier ?? 'DEMO-SUPPLIER';
  const url = new URL('/v2/data-import/accounts/', opts.baseUrl);
  const auth = `Token ${opts.apiKey}`;
  const tariffs = catalogueTariffCodes().filter((c) => c.startsWith('E-'));
  const run = randomBytes(4).toString('hex').toUpperCase();
  // Bodies built up front so the client's CPU goes to sending.
  const bodies = Array.from({ length: requests }, (_, i) => JSON.stringify(account(supplier, `BENCH-${run}-${i}`, tariffs[i % tariffs.length])));
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < requests; i = next++) {
        const t0 = performance.now();
        const status = await post(agent, url, auth, bodies[i]).catch(() => 0);
        latencies.push(performance.now() - t0);
        if (status !== 201) failed++;
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return { requestsPerSecond: round(requests / elapsedS), p50Ms: round(percentile(latencies, 50)), p95Ms: round(percentile(latencies, 95)), failed };
}

// Alone, against a running sandbox at PLATFORM_V2_BASE_URL's origin with PLATFORM_API_KEY:
// `npx tsx harness/bench/sandbox.ts [requests] [concurrency]`.
if (require.main === module) {
  void (async () => {
    const cfg = getConfig();
    const baseUrl = new URL(cfg.PLATFORM_V2_BASE_URL).origin;
    if (!cfg.PLATFORM_API_KEY) throw new Error('PLATFORM_API_KEY is required (the sandbox data-import key)');
    const result = await benchSandbox({
      baseUrl,
      apiKey: cfg.PLATFORM_API_KEY,
      requests: Number(process.argv[2] ?? 2000),
      concurrency: Number(process.argv[3] ?? 32),
      supplier: cfg.IMPORT_SUPPLIER_CODE,
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  })().catch((e: unknown) => {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(1);
  });
}
