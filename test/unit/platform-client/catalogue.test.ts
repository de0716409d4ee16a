import { afterEach, describe, expect, it } from 'vitest';
import { candidateProducts, createPlatformClient, createTariffPreflight, PlatformFinalError } from '../../../clients/platform';
import { configFor, json, startFakePlatform, type FakePlatform, type Seen } from './fake-platform';

let platform: FakePlatform | undefined;
afterEach(async () => {
  await platform?.close();
  platform = undefined;
});

const REGIONS = 'ABCDEFGHJKLMNP'.split('');

function product(code: string) {
  return {
    code,
    direction: 'IMPORT',
    full_name: `${code} full`,
    display_name: code,
    description: '',
    is_variable: true,
    is_green: false,
    is_tracker: false,
    is_prepay: false,
    is_business: false,
    is_restricted: false,
    term: null,
    available_from: '2023-01-01T00:00:00Z',
    available_to: null,
    links: [{ href: `/v1/products/${code}/`, method: 'GET', rel: 'self' }],
    brand: 'DEMO',
  };
}

/** The public product-detail shape: region key → payment method → tariff. */
function productDetail(code: string, fuels: { elec?: string[]; gas?: string[] }) {
  const table = (prefix: string, regions: string[]) =>
    Object.fromEntries(regions.map((r) => [`_${r}`, { direct_debit_monthly: { code: `${prefix}-1R-${code}-${r}`, standard_unit_rate_inc_vat: 24.5 } }]));
  return {
    ...product(code),
    single_register_electricity_tariffs: table('E', fuels.elec ?? []),
    single_register_gas_tariffs: table('G', fuels.gas ?? []),
  };
}

/** Ten products over pages of four, `next` absolute as the platform sends it. */
function catalogueServer(origin: () => string) {
  const codes = Array.from({ length: 10 }, (_, i) => `PROD-${String(i + 1).padStart(2, '0')}`);
  codes.push('VAR-22-11-01');
  return (req: Seen, res: Parameters<Parameters<typeof startFakePlatform>[0]>[1]) => {
    const url = new URL(req.url, origin());
    if (url.pathname === '/v1/products/') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const size = 4;
      const results = codes.slice((page - 1) * size, page * size).map(product);
      const last = page * size >= codes.length;
      const link = (p: number) => {
        const u = new URL(url);
        u.searchParams.set('page', String(p));
        return u.href;
      };
      return json(res, 200, { count: codes.length, next: last ? null : link(page + 1), previous: page > 1 ? link(page - 1) : null, results });
    }
    const detail = /^\/v1\/products\/([^/]+)\/$/.exec(url.pathname);
    if (detail && codes.includes(decodeURIComponent(detail[1]))) {
      const code = decodeURIComponent(detail[1]);
      // VAR-22-11-01 has electricity in every region but gas only in A.
      return json(res, 200, productDetail(code, code === 'VAR-22-11-01' ? { elec: REGIONS, gas: ['A'] } : { elec: ['A'] }));
    }
    // Unit rates exist for PROD-xx tariff `E-1R-PROD-xx-A`, VAR-22-11-01 in every region, and the
    // spec example `ELEC-1234-J` under product 1234 (which this catalogue also lists).
    const rates = /^\/v1\/products\/([^/]+)\/electricity-tariffs\/([^/]+)\/standard-unit-rates\/$/.exec(url.pathname);
    if (rates) {
      const [p, t] = [decodeURIComponent(rates[1]), decodeURIComponent(rates[2])];
      const known =
        (codes.includes(p) && (t === `E-1R-${p}-A` || (p === 'VAR-22-11-01' && t.startsWith(`E-1R-${p}-`)))) || (p === '1234' && t === 'ELEC-1234-J');
      if (!known) return json(res, 404, { detail: 'Not found.' });
      const slot = { value_exc_vat: 20, value_inc_vat: 21, valid_from: '2024-01-01T00:00:00Z', valid_to: '2024-01-01T00:30:00Z', payment_method: null };
      return json(res, 200, { count: 1000, next: null, previous: null, results: [slot] });
    }
    return json(res, 404, { detail: 'No Product matches the given query.' });
  };
}

describe('listProducts', () => {
  it('follows next across 3 pages, sends no credentials, yields each product once', async () => {
    platform = await startFakePlatform(catalogueServer(() => platform!.origin));
    const client = createPlatformClient(configFor(platform.origin));
    const codes: string[] = [];
    for await (const p of client.listProducts({ brand: 'DEMO', is_green: false })) codes.push(p.code);
    expect(codes).toHaveLength(11);
    expect(new Set(codes).size).toBe(11);
    expect(platform.seen.map((r) => r.url)).toEqual([
      '/v1/products/?brand=DEMO&is_green=false',
      '/v1/products/?brand=DEMO&is_green=false&page=2',
      '/v1/products/?brand=DEMO&is_green=false&page=3',
    ]);
    expect(platform.seen.every((r) => r.headers['authorization'] === undefined)).toBe(true);
  });

  it('refuses a next link that loops back to a page already read', async () => {
    platform = await startFakePlatform((req, res) =>
      json(res, 200, { count: 2, next: `${platform!.origin}/v1/products/`, previous: null, results: [product('P1')] }),
    );
    const client = createPlatformClient(configFor(platform.origin));
    const read = async () => {
      for await (const _ of client.listProducts()) void _;
    };
    await expect(read()).rejects.toBeInstanceOf(PlatformFinalError);
    expect(platform.seen).toHaveLength(1);
  });
});

describe('getProduct and getStandardUnitRates', () => {
  it('reads a product detail, undefined on 404', async () => {
    platform = await startFakePlatform(catalogueServer(() => platform!.origin));
    const client = createPlatformClient(configFor(platform.origin));
    const p = await client.getProduct('VAR-22-11-01');
    expect(p?.single_register_electricity_tariffs?._C.direct_debit_monthly.code).toBe('E-1R-VAR-22-11-01-C');
    expect(await client.getProduct('NOPE')).toBeUndefined();
  });

  it('requests the period and follows next for unit rates', async () => {
    const rate = (from: string, to: string) => ({ value_exc_vat: 23.1, value_inc_vat: 24.26, valid_from: from, valid_to: to, payment_method: null });
    platform = await startFakePlatform((req, res) => {
      const url = new URL(req.url, platform!.origin);
      if (url.searchParams.get('page') === '2')
        return json(res, 200, { count: 2, next: null, previous: null, results: [rate('2024-01-01T00:00:00Z', '2024-01-01T00:30:00Z')] });
      const next = new URL(url);
      next.searchParams.set('page', '2');
      return json(res, 200, { count: 2, next: next.href, previous: null, results: [rate('2024-01-01T00:30:00Z', '2024-01-01T01:00:00Z')] });
    });
    const client = createPlatformClient(configFor(platform.origin));
    const rates = [];
    for await (const r of client.getStandardUnitRates('VAR-22-11-01', 'E-1R-VAR-22-11-01-C', {
      periodFrom: new Date('2024-01-01T00:00:00Z'),
      periodTo: '2024-01-01T01:00:00Z',
    }))
      rates.push(r);
    expect(rates.map((r) => r.valid_from)).toEqual(['2024-01-01T00:30:00Z', '2024-01-01T00:00:00Z']);
    const first = new URL(platform.seen[0].url, platform.origin);
    expect(first.pathname).toBe('/v1/products/VAR-22-11-01/electricity-tariffs/E-1R-VAR-22-11-01-C/standard-unit-rates/');
    expect(first.searchParams.get('period_from')).toBe('2024-01-01T00:00:00.000Z');
    expect(first.searchParams.get('period_to')).toBe('2024-01-01T01:00:00Z');
  });
});

describe('tariff pre-flight (documented data only)', () => {
  it('narrows the products to ask by code containment, longest first; this decides nothing', () => {
    expect(candidateProducts('E-1R-VAR-22-11-01-C', ['VAR-22-11-01', 'VAR', 'PROD-01'])).toEqual(['VAR-22-11-01', 'VAR']);
    expect(candidateProducts('ELEC-1234-J', ['1234', 'PROD-01'])).toEqual(['1234']);
    expect(candidateProducts('XYZ', ['PROD-01'])).toEqual([]);
  });

  it("confirms tariffs with unit rates (the spec's example ELEC-1234-J among them); never refuses one", async () => {
    const serve = catalogueServer(() => platform!.origin);
    platform = await startFakePlatform((req, res) => {
      const url = new URL(req.url, platform!.origin);
      // Product 1234 is listed on an extra first page entry.
      if (url.pathname === '/v1/products/' && !url.searchParams.get('page')) {
        return json(res, 200, { count: 12, next: new URL('/v1/products/?page=1', platform!.origin).href, previous: null, results: [product('1234')] });
      }
      return serve(req, res);
    });
    const preflight = createPlatformClient(configFor(platform.origin)).tariffPreflight();
    const verdicts = await preflight.check([
      { code: 'E-1R-VAR-22-11-01-C', fuel: 'electricity' },
      { code: 'ELEC-1234-J', fuel: 'electricity' },
      { code: 'GAS-1234-J', fuel: 'gas' },
      { code: 'E-1R-PROD-03-B', fuel: 'electricity' }, // product listed, no rates for this tariff
      { code: 'E-1R-MISSING-01-A', fuel: 'electricity' }, // no listed product named in it
      { code: 'E-1R-VAR-22-11-01-C', fuel: 'electricity' }, // duplicate
    ]);
    expect(verdicts).toEqual([
      { code: 'E-1R-VAR-22-11-01-C', verdict: 'confirmed', productCode: 'VAR-22-11-01' },
      { code: 'ELEC-1234-J', verdict: 'confirmed', productCode: '1234' },
      { code: 'GAS-1234-J', verdict: 'not_pre_checked', reason: 'gas_rates_not_documented' },
      { code: 'E-1R-PROD-03-B', verdict: 'not_pre_checked', reason: 'no_rates_found' },
      { code: 'E-1R-MISSING-01-A', verdict: 'not_pre_checked', reason: 'no_listed_product_named' },
    ]);
    const paths = platform.seen.map((r) => new URL(r.url, platform!.origin).pathname);
    // Only documented endpoints: the list (through next) and unit rates; never product detail.
    expect(paths.every((p) => p === '/v1/products/' || p.endsWith('/standard-unit-rates/'))).toBe(true);
    expect(paths.filter((p) => p === '/v1/products/').length).toBeGreaterThanOrEqual(4);

    const before = platform.seen.length;
    await preflight.check([{ code: 'ELEC-1234-J', fuel: 'electricity' }]);
    expect(platform.seen.length).toBe(before); // cached
  });

  it('does not cache a failed catalogue read', async () => {
    let fail = true;
    const serve = catalogueServer(() => platform!.origin);
    platform = await startFakePlatform((req, res) => (fail ? json(res, 503) : serve(req, res)));
    const preflight = createTariffPreflight(createPlatformClient(configFor(platform.origin)));
    await expect(preflight.check([{ code: 'E-1R-PROD-01-A', fuel: 'electricity' }])).rejects.toMatchObject({ code: 'platform_unavailable' });
    fail = false;
    expect(await preflight.check([{ code: 'E-1R-PROD-01-A', fuel: 'electricity' }])).toEqual([
      { code: 'E-1R-PROD-01-A', verdict: 'confirmed', productCode: 'PROD-01' },
    ]);
  });
});
