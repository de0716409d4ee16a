import { z } from 'zod';
import { listEnvelopeSchema, productSchema, standardUnitRateSchema, type Product, type StandardUnitRate } from '../../schemas/catalogue';
import { PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import type { HttpRequest, PlatformHttp } from './http';
import { joinUrl, pathOf, segment } from './url';

/** Region key (`_A`…`_P`) → payment method (`direct_debit_monthly`, `varying`, …) → tariff. */
const tariffsByRegionSchema = z.record(z.string(), z.record(z.string(), z.looseObject({ code: z.string().min(1) })));

/**
 * `GET products/<code>/`: a product plus its tariffs by region, in the public catalogue's shape.
 * Only the tables the tariff checker reads are declared.
 */
export const productDetailSchema = productSchema.extend({
  single_register_electricity_tariffs: tariffsByRegionSchema.optional(),
  dual_register_electricity_tariffs: tariffsByRegionSchema.optional(),
  single_register_gas_tariffs: tariffsByRegionSchema.optional(),
});
export type ProductDetail = z.infer<typeof productDetailSchema>;

export interface ListProductsParams {
  brand?: string;
  is_green?: boolean;
  is_prepay?: boolean;
  is_variable?: boolean;
  is_business?: boolean;
  /** ISO 8601 datetime: products available at that moment. */
  available_at?: string;
  page_size?: number;
}

export interface Period {
  periodFrom: string | Date;
  periodTo: string | Date;
}

const iso = (d: string | Date) => (typeof d === 'string' ? d : d.toISOString());

/** The public catalogue (`/v1/products/…`): no credentials are sent. */
export function createCatalogueApi(http: PlatformHttp, v1BaseUrl: string) {
  function rejected(req: HttpRequest, status: number | undefined, why: string): PlatformFinalError {
    return new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: req.method, path: pathOf(req.url), status }, why);
  }

  /** Walks a list envelope through `next` until null; a `next` seen before is an error, not a loop. */
  async function* paginate<T extends z.ZodType>(first: URL, item: T): AsyncGenerator<z.infer<T>> {
    const envelope = listEnvelopeSchema(item);
    const seen = new Set<string>();
    let url: URL | undefined = first;
    while (url) {
      const req: HttpRequest = { method: 'GET', url, authenticated: false };
      if (seen.has(url.href)) throw rejected(req, undefined, 'pagination loop');
      seen.add(url.href);
      const res = await http.request(req);
      if (res.status !== 200) throw http.unexpected(req, res);
      const page = envelope.safeParse(res.body);
      if (!page.success) throw rejected(req, res.status, 'unexpected list body');
      for (const r of page.data.results) yield r;
      // `next` is absolute on the platform; resolving against the current page also copes with a relative one.
      url = page.data.next ? new URL(page.data.next, url) : undefined;
    }
  }

  return {
    /** Every product, page after page. A product seen on an earlier page (offset drift) is not repeated. */
    async *listProducts(params: ListProductsParams = {}): AsyncGenerator<Product> {
      const seen = new Set<string>();
      for await (const p of paginate(joinUrl(v1BaseUrl, 'products/', { ...params }), productSchema)) {
        if (seen.has(p.code)) continue;
        seen.add(p.code);
        yield p;
      }
    },

    /** A product with its tariffs by region; undefined on 404. */
    async getProduct(code: string): Promise<ProductDetail | undefined> {
      const req: HttpRequest = { method: 'GET', url: joinUrl(v1BaseUrl, `products/${segment(code)}/`), authenticated: false };
      const res = await http.request(req);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw http.unexpected(req, res);
      const parsed = productDetailSchema.safeParse(res.body);
      if (!parsed.success) throw rejected(req, res.status, 'unexpected product body');
      return parsed.data;
    },

    /** Standard unit rates of an electricity tariff in a period (the one unit-rate endpoint the API reference shows). */
    getStandardUnitRates(productCode: string, tariffCode: string, period: Period): AsyncGenerator<StandardUnitRate> {
      const url = joinUrl(v1BaseUrl, `products/${segment(productCode)}/electricity-tariffs/${segment(tariffCode)}/standard-unit-rates/`, {
        period_from: iso(period.periodFrom),
        period_to: iso(period.periodTo),
      });
      return paginate(url, standardUnitRateSchema);
    },

    /**
     * Whether the unit-rate list of `tariffCode` under `productCode` holds any rate (first page of one).
     * false for 404 or an empty list: the API reference does not say what a 404 there means, so it only
     * fails to confirm.
     */
    async hasStandardUnitRates(productCode: string, tariffCode: string): Promise<boolean> {
      const url = joinUrl(v1BaseUrl, `products/${segment(productCode)}/electricity-tariffs/${segment(tariffCode)}/standard-unit-rates/`, { page_size: 1 });
      const req: HttpRequest = { method: 'GET', url, authenticated: false };
      const res = await http.request(req);
      if (res.status === 404) return false;
      if (res.status !== 200) throw http.unexpected(req, res);
      const page = listEnvelopeSchema(standardUnitRateSchema).safeParse(res.body);
      if (!page.success) throw rejected(req, res.status, 'unexpected list body');
      return page.data.count > 0 || page.data.results.length > 0;
    },
  };
}

export type CatalogueApi = ReturnType<typeof createCatalogueApi>;
