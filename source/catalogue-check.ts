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

/** Every agreement's tariff code in a payload, with its attr. */
export function tariffCodesOf(payload: EnergyAccount): { code: string; attr: string }[] {
  const out: { code: string; attr: string }[] = [];
  (payload.supply_addresses ?? []).forEach((sa, i) =>
    sa.meter_points.forEach((mp, j) =>
      (mp.agreements ?? []).forEach((a, k) => out.push({ code: a.tariff_code, attr: `supply_addresses.${i}.meter_points.${j}.agreements.${k}.tariff_code` })),
    ),
  );
  return out;
}

export function catalogueErrors(payload: EnergyAccount, known: ReadonlySet<string>): CatalogueError[] {
  return tariffCodesOf(payload)
    .filter((t) => !known.has(t.code))
    .map((t) => ({ code: 'tariff_code_not_found', attr: t.attr, detail: `Tariff code ${t.code} is not in the platform catalogue.` }));
}
