import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { isExecutable, onPath } from '../../harness/browser/executable';

/**
 * Debian's Prometheus tools (`prometheus`, `promtool`, `prometheus-alertmanager`; .ci/run installs
 * them) found as the report test finds Chromium: `<NAME>_PATH` (PROMETHEUS_PATH, PROMTOOL_PATH,
 * ALERTMANAGER_PATH), else the first of the usual names on PATH. Undefined when none is found.
 */
export function findTool(tool: 'prometheus' | 'promtool' | 'alertmanager', env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[`${tool.toUpperCase()}_PATH`];
  if (given) return isExecutable(given) ? given : undefined;
  return onPath(tool === 'alertmanager' ? ['prometheus-alertmanager', 'alertmanager'] : [tool], env);
}

/** The tool, or an error naming the package that brings it (the tests need the real one). */
export function requireTool(tool: 'prometheus' | 'promtool' | 'alertmanager'): string {
  const found = findTool(tool);
  if (!found) {
    const pkg = tool === 'alertmanager' ? 'prometheus-alertmanager' : 'prometheus';
    throw new Error(`${tool} not found: install Debian's ${pkg} (apt-get install ${pkg}) or set ${tool.toUpperCase()}_PATH`);
  }
  return found;
}

export interface Started {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a server and waits until `readyPath` answers 200 (its log in `logFile` on failure). */
export async function startServer(o: {
  command: string;
  args: string[];
  port: number;
  readyPath: string;
  logFile: string;
  timeoutMs?: number;
}): Promise<Started> {
  const log = fs.openSync(o.logFile, 'a');
  const proc = spawn(o.command, o.args, { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${o.port}`;
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${o.command} exited ${proc.exitCode}: ${fs.readFileSync(o.logFile, 'utf8').slice(-2000)}`);
    const ok = await fetch(url + o.readyPath, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, proc, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${o.command} not ready in time: ${fs.readFileSync(o.logFile, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One instant query against Prometheus's HTTP API: the result vector. */
export async function promQuery(prometheusUrl: string, query: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const r = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = (await r.json()) as {
    status: string;
    error?: string;
    data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  if (body.status !== 'success') throw new Error(`query ${query} failed: ${body.error}`);
  return body.data!.result;
}
