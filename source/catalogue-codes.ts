import { defaultMapping, platformTariffCode } from './mapping';

/**
 * The platform tariff codes the generator may use for clean accounts. The one place that knows
 * where the platform catalogue comes from.
 * TODO(switch): once sandbox/catalogue.ts exists, replace the body with
 *   `return new Set(catalogueTariffCodes());` (import { catalogueTariffCodes } from '../sandbox/catalogue').
 */
const REGIONS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K', 'L', 'M', 'N', 'P'];
const RETIRED = new Set(['FIX-12M-19-03']);

export function knownTariffCodes(): Set<string> {
  const m = defaultMapping();
  return new Set(
    Object.values(m.tariffs)
      .filter((t) => !RETIRED.has(t.product_code))
      .flatMap((t) => REGIONS.map((r) => platformTariffCode(t, r))),
  );
}
