import type { EnergyAccount } from '../schemas/account';

/**
 * The tariff pre-flight's pure half: which tariffs a payload names (with their attrs and fuels),
 * and the notes recorded for the ones the public catalogue could not confirm. The pre-flight never
 * fails an account (documented data cannot prove a tariff absent); the platform decides, and the
 * report counts accounts with notes as "not pre-checked".
 */
export interface PayloadTariff {
  code: string;
  fuel: 'electricity' | 'gas';
  attr: string;
}

export const TARIFF_NOT_PRE_CHECKED = 'tariff_not_pre_checked';
export const PREFLIGHT_STAGE = 'preflight';

export interface PreflightNote {
  code: typeof TARIFF_NOT_PRE_CHECKED;
  attr: string;
  detail: string;
}

/** Every agreement's tariff code in a payload, with its attr and the meter point's fuel. */
export function tariffsOf(payload: EnergyAccount): PayloadTariff[] {
  const out: PayloadTariff[] = [];
  (payload.supply_addresses ?? []).forEach((sa, i) =>
    sa.meter_points.forEach((mp, j) =>
      (mp.agreements ?? []).forEach((a, k) =>
        out.push({
          code: a.tariff_code,
          fuel: mp.supply_type === 'GAS' ? 'gas' : 'electricity',
          attr: `supply_addresses.${i}.meter_points.${j}.agreements.${k}.tariff_code`,
        }),
      ),
    ),
  );
  return out;
}

const REASONS: Record<string, string> = {
  gas_rates_not_documented: 'the reference documents unit rates for electricity tariffs only',
  no_listed_product_named: 'no product in the catalogue list names this tariff',
  no_rates_found: 'the catalogue shows no unit rates for this tariff',
  preflight_off: 'the tariff pre-flight is off (PLATFORM_TARIFF_PREFLIGHT=false)',
};

/**
 * One note per agreement whose tariff was not confirmed (`verdicts` keyed by code; a code without a
 * verdict is not confirmed). Pure.
 */
export function preflightNotes(tariffs: PayloadTariff[], verdicts: ReadonlyMap<string, { verdict: string; reason?: string }>): PreflightNote[] {
  return tariffs
    .filter((t) => verdicts.get(t.code)?.verdict !== 'confirmed')
    .map((t) => {
      const reason = verdicts.get(t.code)?.reason ?? 'preflight_off';
      return { code: TARIFF_NOT_PRE_CHECKED, attr: t.attr, detail: `Tariff ${t.code} not pre-checked: ${REASONS[reason] ?? reason}.` };
    });
}

/**
 * The platform's `tariff_code_not_found` event names no field. Every confirmed tariff exists, so the
 * unknown one is among those not pre-checked: when exactly one is, that is the field. Pure.
 */
export function tariffAttrFor(code: string | undefined, notes: ReadonlyArray<{ attr: string | null }>): string | undefined {
  if (code !== 'tariff_code_not_found') return undefined;
  const attrs = [...new Set(notes.map((n) => n.attr).filter((a): a is string => !!a))];
  return attrs.length === 1 ? attrs[0] : undefined;
}
