import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defaultCatalogue, parseTariffCode, productByCode, REGIONS, regionTariff, unitRateForSlot, type CatalogueProduct } from '../catalogue';
import { parseIsoDateTime, isoSeconds } from '../time';

const SLOT_MS = 30 * 60 * 1000;
const MAX_PAGE_SIZE = 1500;

const boolParam = z.enum(['true', 'false', 'True', 'False', '1', '0']).transform((v) => v === 'true' || v === 'True' || v === '1');
const pageParams = {
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(100),
};
const listQuerySchema = z.object({
  ...pageParams,
  brand: z.string().optional(),
  is_green: boolParam.optional(),
  is_prepay: boolParam.optional(),
  is_variable: boolParam.optional(),
  is_business: boolParam.optional(),
  is_tracker: boolParam.optional(),
});
const ratesQuerySchema = z.object({ ...pageParams, period_from: z.string().optional(), period_to: z.string().optional() });

const notFound = { detail: 'Not found.', code: 'not_found' };
const invalidPage = { detail: 'Invalid page.', code: 'not_found' };

function baseUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? req.hostname}`;
}

/** Absolute `next` / `previous` as DRF's page-number paginator builds them (page 1 drops `page`). */
export function pageLinks(req: FastifyRequest, page: number, pageSize: number, count: number): { next: string | null; previous: string | null } {
  const url = new URL(req.url, baseUrl(req));
  const link = (p: number) => {
    const u = new URL(url);
    if (p === 1) u.searchParams.delete('page');
    else u.searchParams.set('page', String(p));
    return u.toString();
  };
  const last = Math.max(1, Math.ceil(count / pageSize));
  return { next: page < last ? link(page + 1) : null, previous: page > 1 ? link(page - 1) : null };
}

function publicProduct(p: CatalogueProduct, base: string) {
  const { fuels: _fuels, half_hourly_rates: _hh, ...rest } = p;
  return { ...rest, links: [{ href: `${base}/v1/products/${p.code}/`, method: 'GET', rel: 'self' }] };
}

function tariffsByRegion(p: CatalogueProduct, fuel: 'electricity' | 'gas', base: string) {
  if (!p.fuels.includes(fuel)) return {};
  const paymentKey = p.is_prepay ? 'prepayment' : 'direct_debit_monthly';
  const kind = fuel === 'electricity' ? 'electricity-tariffs' : 'gas-tariffs';
  return Object.fromEntries(
    REGIONS.map((r) => {
      const t = regionTariff(p, fuel, r);
      const links = [
        { href: `${base}/v1/products/${p.code}/${kind}/${t.code}/standard-unit-rates/`, method: 'GET', rel: 'standard_unit_rates' },
        { href: `${base}/v1/products/${p.code}/${kind}/${t.code}/standing-charges/`, method: 'GET', rel: 'standing_charges' },
      ];
      return [`_${r}`, { [paymentKey]: { ...t, links } }];
    }),
  );
}

function badQuery(error: z.ZodError) {
  return {
    detail: 'Invalid query parameters.',
    code: 'invalid',
    errors: error.issues.map((i) => ({ attr: i.path.join('.'), code: 'invalid', detail: i.message })),
  };
}

/** Public product catalogue, no auth, list envelope `{count, next, previous, results}`. */
export function registerCatalogueRoutes(app: FastifyInstance): void {
  app.get('/v1/products/', async (req, reply) => {
    const q = listQuerySchema.safeParse(req.query);
    if (!q.success) return reply.code(400).send(badQuery(q.error));
    const f = q.data;
    const matching = defaultCatalogue().filter(
      (p) =>
        (f.brand === undefined || p.brand === f.brand) &&
        (f.is_green === undefined || p.is_green === f.is_green) &&
        (f.is_prepay === undefined || p.is_prepay === f.is_prepay) &&
        (f.is_variable === undefined || p.is_variable === f.is_variable) &&
        (f.is_business === undefined || p.is_business === f.is_business) &&
        (f.is_tracker === undefined || p.is_tracker === f.is_tracker),
    );
    const start = (f.page - 1) * f.page_size;
    if (f.page > 1 && start >= matching.length) return reply.code(404).send(invalidPage);
    const base = baseUrl(req);
    return {
      count: matching.length,
      ...pageLinks(req, f.page, f.page_size, matching.length),
      results: matching.slice(start, start + f.page_size).map((p) => publicProduct(p, base)),
    };
  });

  app.get<{ Params: { code: string } }>('/v1/products/:code/', async (req, reply) => {
    const p = productByCode(req.params.code);
    if (!p) return reply.code(404).send(notFound);
    const base = baseUrl(req);
    return {
      ...publicProduct(p, base),
      tariffs_active_at: isoSeconds(Date.now()),
      single_register_electricity_tariffs: tariffsByRegion(p, 'electricity', base),
      dual_register_electricity_tariffs: {},
      single_register_gas_tariffs: tariffsByRegion(p, 'gas', base),
      sample_quotes: {},
      sample_consumption: {},
    };
  });

  app.get<{ Params: { code: string; tariff: string } }>('/v1/products/:code/electricity-tariffs/:tariff/standard-unit-rates/', async (req, reply) => {
    const p = productByCode(req.params.code);
    const t = parseTariffCode(req.params.tariff);
    if (!p || !t || t.fuel !== 'electricity' || t.productCode !== p.code) return reply.code(404).send(notFound);
    const q = ratesQuerySchema.safeParse(req.query);
    if (!q.success) return reply.code(400).send(badQuery(q.error));
    const from = q.data.period_from !== undefined ? parseIsoDateTime(q.data.period_from) : Date.parse(p.available_from);
    const to = q.data.period_to !== undefined ? parseIsoDateTime(q.data.period_to) : Math.ceil(Date.now() / SLOT_MS) * SLOT_MS;
    if (from === undefined) return reply.code(400).send({ detail: 'period_from is not an ISO 8601 datetime.', code: 'invalid' });
    if (to === undefined) return reply.code(400).send({ detail: 'period_to is not an ISO 8601 datetime.', code: 'invalid' });
    // Slots overlapping [from, to) within the product's availability, newest first.
    const availableTo = p.available_to ? Date.parse(p.available_to) : Infinity;
    const first = Math.floor(Math.max(from, Date.parse(p.available_from)) / SLOT_MS) * SLOT_MS;
    const end = Math.min(to, availableTo);
    const count = end > first ? Math.ceil((end - first) / SLOT_MS) : 0;
    const { page, page_size } = q.data;
    const start = (page - 1) * page_size;
    if (page > 1 && start >= count) return reply.code(404).send(invalidPage);
    const newest = first + (count - 1) * SLOT_MS;
    const results = [];
    for (let i = start; i < Math.min(count, start + page_size); i++) {
      const slot = newest - i * SLOT_MS;
      results.push({
        ...unitRateForSlot(p, req.params.tariff, slot),
        valid_from: isoSeconds(slot),
        valid_to: isoSeconds(slot + SLOT_MS),
        payment_method: null,
      });
    }
    return { count, ...pageLinks(req, page, page_size, count), results };
  });
}
