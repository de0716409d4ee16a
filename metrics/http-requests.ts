import type { FastifyInstance } from 'fastify';
import { Counter, type Registry } from 'prom-client';

/**
 * Counts a server's answers by route and status class (`kraken_migrate_http_requests_total`): the
 * route's pattern (never the URL, which may name a namespace or carry a query), so labels stay bounded.
 */
export function countHttpRequests(app: FastifyInstance, registry: Registry, server: string): void {
  const counter =
    (registry.getSingleMetric('kraken_migrate_http_requests_total') as Counter | undefined) ??
    new Counter({
      name: 'kraken_migrate_http_requests_total',
      help: 'Requests answered, by server, route pattern and status class (2xx, 4xx, 5xx).',
      labelNames: ['server', 'route', 'status'],
      registers: [registry],
    });
  app.addHook('onResponse', async (req, reply) => {
    counter.inc({ server, route: req.routeOptions.url ?? 'unmatched', status: `${Math.floor(reply.statusCode / 100)}xx` });
  });
}
