import { catalogueTariffCodes } from '../sandbox/catalogue';

/**
 * The platform tariff codes the generator may use for clean accounts: the platform sandbox's
 * catalogue. The one place that knows where the catalogue comes from (a real tenant's would be
 * read from `GET /v1/products/`). Legacy tariffs mapped to codes outside it (OLDFIX-19-*, a
 * product the platform never had) feed the `unknown_tariff_code` defect.
 */
export function knownTariffCodes(): Set<string> {
  return new Set(catalogueTariffCodes());
}
