import type { CatalogueApi, ProductDetail } from './catalogue';

export type Fuel = 'electricity' | 'gas';

export interface TariffCodeParts {
  fuel: Fuel;
  registers: 1 | 2;
  productCode: string;
  region: string;
}

// `E-1R-VAR-22-11-01-C`: fuel, register count, product code (may itself hold dashes), GSP region A–P.
const TARIFF_CODE = /^([EG])-([12])R-(.+)-([A-P])$/;

export function parseTariffCode(code: string): TariffCodeParts | undefined {
  const m = TARIFF_CODE.exec(code);
  if (!m) return undefined;
  return { fuel: m[1] === 'E' ? 'electricity' : 'gas', registers: m[2] === '1' ? 1 : 2, productCode: m[3], region: m[4] };
}

function tariffTable(detail: ProductDetail, parts: TariffCodeParts) {
  if (parts.fuel === 'gas') return parts.registers === 1 ? detail.single_register_gas_tariffs : undefined;
  return parts.registers === 1 ? detail.single_register_electricity_tariffs : detail.dual_register_electricity_tariffs;
}

/** Every tariff code a product lists for any region and payment method. */
function tariffCodesOf(detail: ProductDetail, parts: TariffCodeParts): Set<string> {
  const codes = new Set<string>();
  for (const byMethod of Object.values(tariffTable(detail, parts) ?? {})) {
    for (const tariff of Object.values(byMethod)) codes.add(tariff.code);
  }
  return codes;
}

export interface TariffChecker {
  /** The codes (deduplicated, in input order) the platform's catalogue does not offer. */
  unknownTariffCodes(codes: string[]): Promise<string[]>;
}

/**
 * Answers from the public catalogue: the product list (followed through `next`) says which products
 * exist, the detail of each referenced product which tariffs it has. Both are cached for the life of
 * the checker (one per run per worker); a failed fetch is not cached, so a retry asks again.
 */
export function createTariffChecker(catalogue: Pick<CatalogueApi, 'listProducts' | 'getProduct'>): TariffChecker {
  let listed: Promise<Set<string>> | undefined;
  const details = new Map<string, Promise<ProductDetail | undefined>>();

  function products(): Promise<Set<string>> {
    listed ??= (async () => {
      const codes = new Set<string>();
      for await (const p of catalogue.listProducts()) codes.add(p.code);
      return codes;
    })().catch((err: unknown) => {
      listed = undefined;
      throw err;
    });
    return listed;
  }

  function detail(productCode: string): Promise<ProductDetail | undefined> {
    let pending = details.get(productCode);
    if (!pending) {
      pending = catalogue.getProduct(productCode).catch((err: unknown) => {
        details.delete(productCode);
        throw err;
      });
      details.set(productCode, pending);
    }
    return pending;
  }

  async function isKnown(code: string, existing: Set<string>): Promise<boolean> {
    const parts = parseTariffCode(code);
    if (!parts || !existing.has(parts.productCode)) return false;
    const d = await detail(parts.productCode);
    return d !== undefined && tariffCodesOf(d, parts).has(code);
  }

  return {
    async unknownTariffCodes(codes) {
      const unique = [...new Set(codes)];
      if (unique.length === 0) return [];
      const existing = unique.some((c) => parseTariffCode(c)) ? await products() : new Set<string>();
      const known = await Promise.all(unique.map((c) => isKnown(c, existing)));
      return unique.filter((_, i) => !known[i]);
    },
  };
}
