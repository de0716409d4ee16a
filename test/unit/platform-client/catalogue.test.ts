import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformClient, createTariffChecker, parseTariffCode, PlatformFinalError } from '../../../clients/platform';
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
      if (url.searchParams.get('page') === '2') return json(res, 200, { count: 2, next: null, previous: null, results: [rate('2024-01-01T00:00:00Z', '2024-01-01T00:30:00Z')] });
      const next = new URL(url);
      next.searchParams.set('page', '2');
      return json(res, 200, { count: 2, next: next.href, previous: null, results: [rate('2024-01-01T00:30:00Z', '2024-01-01T01:00:00Z')] });
    });
    const client = createPlatformClient(configFor(platform.origin));
    const rates = [];
    for await (const r of client.getStandardUnitRates('VAR-22-11-01', 'E-1R-VAR-22-11-01-C', {
      periodFrom: new Date('2024-01-01T00:00:00Z'),
      periodTo: '2024-01-01T01:00:00Z',
    })) rates.push(r);
    expect(rates.map((r) => r.valid_from)).toEqual(['2024-01-01T00:30:00Z', '2024-01-01T00:00:00Z']);
    const first = new URL(platform.seen[0].url, platform.origin);
    expect(first.pathname).toBe('/v1/products/VAR-22-11-01/electricity-tariffs/E-1R-VAR-22-11-01-C/standard-unit-rates/');
    expect(first.searchParams.get('period_from')).toBe('2024-01-01T00:00:00.000Z');
    expect(first.searchParams.get('period_to')).toBe('2024-01-01T01:00:00Z');
  });
});

describe('tariff checker', () => {
  it('parses tariff codes whose product code holds dashes', () => {
    expect(parseTariffCode('E-1R-VAR-22-11-01-C')).toEqual({ fuel: 'electricity', registers: 1, productCode: 'VAR-22-11-01', region: 'C' });
    expect(parseTariffCode('G-1R-VAR-22-11-01-A')).toMatchObject({ fuel: 'gas', productCode: 'VAR-22-11-01', region: 'A' });
    expect(parseTariffCode('ELEC-1234-J')).toBeUndefined();
    expect(parseTariffCode('E-1R-VAR-22-11-01-Z')).toBeUndefined();
  });

  it('reports unknown codes and answers a second time from its cache', async () => {
    platform = await startFakePlatform(catalogueServer(() => platform!.origin));
    const checker = createPlatformClient(configFor(platform.origin)).tariffCatalogue();
    const codes = [
      'E-1R-VAR-22-11-01-C', // known
      'G-1R-VAR-22-11-01-A', // known
      'G-1R-VAR-22-11-01-B', // product has no gas tariff in B
      'E-1R-PROD-03-A', // known
      'E-1R-PROD-03-B', // product exists, region does not
      'E-1R-MISSING-01-A', // no such product
      'ELEC-1234-J', // not a tariff code at all
      'E-1R-VAR-22-11-01-C', // duplicate
    ];
    const expected = ['G-1R-VAR-22-11-01-B', 'E-1R-PROD-03-B', 'E-1R-MISSING-01-A', 'ELEC-1234-J'];
    expect(await checker.unknownTariffCodes(codes)).toEqual(expected);
    const requests = platform.seen.map((r) => new URL(r.url, platform!.origin).pathname);
    // Three list pages, then only the two referenced products that exist.
    expect(requests.filter((p) => p === '/v1/products/')).toHaveLength(3);
    expect(requests.filter((p) => p !== '/v1/products/').sort()).toEqual(['/v1/products/PROD-03/', '/v1/products/VAR-22-11-01/']);

    const before = platform.seen.length;
    expect(await checker.unknownTariffCodes(codes)).toEqual(expected);
    expect(await checker.unknownTariffCodes(['E-1R-PROD-03-A'])).toEqual([]);
    expect(platform.seen.length).toBe(before);
  });

  it('does not cache a failed catalogue read', async () => {
    let fail = true;
    const serve = catalogueServer(() => platform!.origin);
    platform = await startFakePlatform((req, res) => (fail ? json(res, 503) : serve(req, res)));
    const client = createPlatformClient(configFor(platform.origin));
    const checker = createTariffChecker(client);
    await expect(checker.unknownTariffCodes(['E-1R-PROD-01-A'])).rejects.toMatchObject({ code: 'platform_unavailable' });
    fail = false;
    expect(await checker.unknownTariffCodes(['E-1R-PROD-01-A', 'E-1R-PROD-01-B'])).toEqual(['E-1R-PROD-01-B']);
  });
});
