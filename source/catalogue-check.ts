import type { EnergyAccount } from '../schemas/account';

/**
 * The catalogue stage: every agreement's tariff code must exist on the platform, checked before
 * scheduling (the platform would otherwise fail the import later with the same code). Pure: the
 * caller fetches the catalogue.
 */
export interface CatalogueError {
  code: 'tariff_code_not_found';
  attr: string;
  detail: string;
}

export function catalogueErrors(payload: EnergyAccount, known: ReadonlySet<string>): CatalogueError[] {
  const errors: CatalogueError[] = [];
  (payload.supply_addresses ?? []).forEach((sa, i) =>
    sa.meter_points.forEach((mp, j) =>
      (mp.agreements ?? []).forEach((a, k) => {
        if (!known.has(a.tariff_code)) {
          errors.push({
            code: 'tariff_code_not_found',
            attr: `supply_addresses.${i}.meter_points.${j}.agreements.${k}.tariff_code`,
            detail: `Tariff code ${a.tariff_code} is not in the platform catalogue.`,
          });
        }
      }),
    ),
  );
  return errors;
}
