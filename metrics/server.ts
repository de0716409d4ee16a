import http from 'node:http';
import net from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** `host:port` (config's METRICS_ADDRESS) split; an IPv6 host loses its brackets. */
export function parseAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(i + 1)) };
}

/** A registry for one process, with Node's own process metrics (CPU, memory, event loop) in it. */
export function processRegistry(role: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ role });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics`: the registry's families, then what `more` adds (the Temporal SDK's own
 * exposition, fetched from its loopback exporter), so one address per process shows both.
 */
export async function startMetricsServer(opts: { address: string; registry: Registry; more?: () => Promise<string> }): Promise<MetricsServer> {
  const { host, port } = parseAddress(opts.address);
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    Promise.all([opts.registry.metrics(), opts.more ? opts.more().catch(() => '') : ''])
      .then(([ours, more]) => {
        res.writeHead(200, { 'content-type': opts.registry.contentType });
        res.end(more ? `${ours}\n${more}` : ours);
      })
      .catch((e: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`metrics failed: ${e.message}\n`);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as net.AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A free loopback port: where the Temporal SDK's exporter listens, behind the process's own address. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** GET a loopback exporter's text; '' when it does not answer within `timeoutMs`. */
export async function fetchText(url: string, timeoutMs = 2000): Promise<string> {
  const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return r.ok ? await r.text() : '';
}

/** A process's metrics on METRICS_ADDRESS (its registry for the servers to count into), or nothing when unset. */
export async function serveProcessMetrics(address: string | undefined, role: string): Promise<{ registry?: Registry; url?: string; close(): Promise<void> }> {
  if (!address) return { close: async () => {} };
  const registry = processRegistry(role);
  const server = await startMetricsServer({ address, registry });
  return { registry, url: server.url, close: () => server.close() };
}
