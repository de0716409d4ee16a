import type { CatalogueApi } from './catalogue';

/**
 * Tariff pre-flight from documented data only (the API reference; sandbox/README.md records what it states): the products list (followed through
 * `next`) and a tariff's standard unit rates
 * (`products/<product_code>/electricity-tariffs/<tariff_code>/standard-unit-rates/`). No reference
 * document defines a tariff-code format, the tariff tables of a product's detail, a gas unit-rate
 * endpoint or what a 404 there means, so:
 * - a tariff is *confirmed* when the unit-rate list of a listed product answers with rates for it;
 * - anything else is *not pre-checked*: the platform decides (it reports `tariff_code_not_found`).
 * The pre-flight never refuses an account. Which listed products to ask is narrowed to those whose
 * code appears inside the tariff code: that only saves requests, it decides nothing.
 */

export type Fuel = 'electricity' | 'gas';

export interface TariffToCheck {
  code: string;
  fuel: Fuel;
}

export type NotPreCheckedReason =
  /** The reference documents unit rates for electricity tariffs only. */
  | 'gas_rates_not_documented'
  /** No listed product's code appears in the tariff code, so no documented request can ask about it. */
  | 'no_listed_product_named'
  /** The listed products asked answered without rates for the tariff (404 or an empty list). */
  | 'no_rates_found';

export type TariffVerdict =
  { code: string; verdict: 'confirmed'; productCode: string } | { code: string; verdict: 'not_pre_checked'; reason: NotPreCheckedReason };

export interface TariffPreflight {
  /** One verdict per distinct code, in input order. */
  check(tariffs: TariffToCheck[]): Promise<TariffVerdict[]>;
}

/** Listed products whose code appears inside the tariff code, longest first. Pure. */
export function candidateProducts(tariffCode: string, productCodes: Iterable<string>): string[] {
  return [...productCodes].filter((p) => p.length > 0 && tariffCode.includes(p)).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/** At most this many listed products are asked about one tariff code. */
const MAX_CANDIDATES = 3;

/**
 * Answers are cached for the life of the pre-flight (one per run per worker); a failed request is
 * not cached, so the activity's retry asks again.
 */
export function createTariffPreflight(catalogue: Pick<CatalogueApi, 'listProducts' | 'hasStandardUnitRates'>): TariffPreflight {
  let listed: Promise<string[]> | undefined;
  const verdicts = new Map<string, Promise<TariffVerdict>>();

  function products(): Promise<string[]> {
    listed ??= (async () => {
      const codes: string[] = [];
      for await (const p of catalogue.listProducts()) codes.push(p.code);
      return codes;
    })().catch((err: unknown) => {
      listed = undefined;
      throw err;
    });
    return listed;
  }

  async function decide(t: TariffToCheck): Promise<TariffVerdict> {
    if (t.fuel !== 'electricity') return { code: t.code, verdict: 'not_pre_checked', reason: 'gas_rates_not_documented' };
    const candidates = candidateProducts(t.code, await products()).slice(0, MAX_CANDIDATES);
    if (candidates.length === 0) return { code: t.code, verdict: 'not_pre_checked', reason: 'no_listed_product_named' };
    for (const productCode of candidates) {
      if (await catalogue.hasStandardUnitRates(productCode, t.code)) return { code: t.code, verdict: 'confirmed', productCode };
    }
    return { code: t.code, verdict: 'not_pre_checked', reason: 'no_rates_found' };
  }

  return {
    async check(tariffs) {
      const unique = new Map<string, TariffToCheck>();
      for (const t of tariffs) if (!unique.has(`${t.fuel}:${t.code}`)) unique.set(`${t.fuel}:${t.code}`, t);
      return Promise.all(
        [...unique.entries()].map(([key, t]) => {
          let v = verdicts.get(key);
          if (!v) {
            v = decide(t).catch((err: unknown) => {
              verdicts.delete(key);
              throw err;
            });
            verdicts.set(key, v);
          }
          return v;
        }),
      );
    },
  };
}
