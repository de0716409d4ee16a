import { z } from 'zod';
import { hashUnit } from './prng';

/**
 * The sandbox's product catalogue: deterministic (same codes and prices on every start), large
 * enough to paginate (150 products), with tariff codes in the real pattern
 * `E-1R-<PRODUCT_CODE>-<REGION>` / `G-1R-<PRODUCT_CODE>-<REGION>`. The synthetic data generator
 * imports `catalogueTariffCodes()`: keep its output stable.
 */

/** GB electricity regions (GSP groups) as the public API keys them; there is no I or O. */
export const REGIONS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K', 'L', 'M', 'N', 'P'] as const;
export type Region = (typeof REGIONS)[number];

export const productSchema = z.object({
  code: z.string(),
  direction: z.enum(['IMPORT', 'EXPORT']),
  full_name: z.string(),
  display_name: z.string(),
  description: z.string(),
  is_variable: z.boolean(),
  is_green: z.boolean(),
  is_tracker: z.boolean(),
  is_prepay: z.boolean(),
  is_business: z.boolean(),
  is_restricted: z.boolean(),
  term: z.number().int().nullable(),
  available_from: z.string(),
  available_to: z.string().nullable(),
  brand: z.string(),
  /** Not part of the public product record: which fuels have tariffs, and whether rates move per slot. */
  fuels: z.array(z.enum(['electricity', 'gas'])),
  half_hourly_rates: z.boolean(),
});
export type CatalogueProduct = z.infer<typeof productSchema>;

export const regionTariffSchema = z.object({
  code: z.string(),
  standing_charge_exc_vat: z.number(),
  standing_charge_inc_vat: z.number(),
  online_discount_exc_vat: z.number(),
  online_discount_inc_vat: z.number(),
  dual_fuel_discount_exc_vat: z.number(),
  dual_fuel_discount_inc_vat: z.number(),
  exit_fees_exc_vat: z.number(),
  exit_fees_inc_vat: z.number(),
  exit_fees_type: z.enum(['NONE', 'PER_FUEL']),
  standard_unit_rate_exc_vat: z.number(),
  standard_unit_rate_inc_vat: z.number(),
});
export type RegionTariff = z.infer<typeof regionTariffSchema>;

interface Family {
  prefix: string;
  name: string;
  brand: string;
  direction?: 'IMPORT' | 'EXPORT';
  variable?: boolean;
  green?: boolean;
  tracker?: boolean;
  prepay?: boolean;
  business?: boolean;
  term?: number;
  electricityOnly?: boolean;
  halfHourly?: boolean;
}

const FAMILIES: Family[] = [
  { prefix: 'VAR', name: 'Flexible', brand: 'OCTOPUS_ENERGY', variable: true },
  { prefix: 'AGILE', name: 'Agile', brand: 'OCTOPUS_ENERGY', variable: true, green: true, electricityOnly: true, halfHourly: true },
  { prefix: 'GO-VAR', name: 'Go', brand: 'OCTOPUS_ENERGY', variable: true, green: true, electricityOnly: true },
  { prefix: 'FIX-12M', name: 'Fixed 12M', brand: 'OCTOPUS_ENERGY', term: 12 },
  { prefix: 'FIX-24M', name: 'Fixed 24M', brand: 'TENTACLE_ENERGY', term: 24 },
  { prefix: 'GREEN-FIX-12M', name: 'Green Fixed 12M', brand: 'TENTACLE_ENERGY', green: true, term: 12 },
  { prefix: 'SILVER', name: 'Tracker', brand: 'OCTOPUS_ENERGY', variable: true, tracker: true },
  { prefix: 'PREPAY-VAR', name: 'Prepay Flexible', brand: 'SANDBOX_ENERGY', variable: true, prepay: true },
  { prefix: 'BUS-FIX-12M', name: 'Business Fixed 12M', brand: 'SANDBOX_ENERGY', business: true, term: 12 },
  { prefix: 'OUTGOING-FIX-12M', name: 'Outgoing Fixed', brand: 'OCTOPUS_ENERGY', direction: 'EXPORT', green: true, term: 12, electricityOnly: true },
];

/** 15 launch dates per family, 2022-01-01 … 2023-03-01: 150 products. */
const LAUNCHES = Array.from({ length: 15 }, (_, i) => {
  const d = new Date(Date.UTC(2022, i, 1));
  return d.toISOString().slice(0, 10);
});

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The spec's example payloads use tariff codes `ELEC-1234-J` and `GAS-1234-J`: product `1234`, both
 * fuels, codes `ELEC-1234-<region>` / `GAS-1234-<region>`, so the spec's own examples import here.
 * Kept out of `catalogueTariffCodes()` (the generator's choices stay stable).
 */
export const SPEC_EXAMPLE_PRODUCT = '1234';

function buildCatalogue(): CatalogueProduct[] {
  const out: CatalogueProduct[] = [];
  for (const f of FAMILIES) {
    LAUNCHES.forEach((date, i) => {
      const code = `${f.prefix}-${date.slice(2, 4)}-${date.slice(5, 7)}-${date.slice(8, 10)}`;
      const next = LAUNCHES[i + 1];
      out.push({
        code,
        direction: f.direction ?? 'IMPORT',
        full_name: `${f.name} ${date.slice(0, 7)}`,
        display_name: f.name,
        description: `${f.name} tariff launched ${date} (sandbox catalogue).`,
        is_variable: f.variable ?? false,
        is_green: f.green ?? false,
        is_tracker: f.tracker ?? false,
        is_prepay: f.prepay ?? false,
        is_business: f.business ?? false,
        is_restricted: false,
        term: f.term ?? null,
        available_from: `${date}T00:00:00Z`,
        available_to: next ? `${next}T00:00:00Z` : null,
        brand: f.brand,
        fuels: f.electricityOnly ? ['electricity'] : ['electricity', 'gas'],
        half_hourly_rates: f.halfHourly ?? false,
      });
    });
  }
  out.push({
    code: SPEC_EXAMPLE_PRODUCT,
    direction: 'IMPORT',
    full_name: 'Spec example product',
    display_name: 'Spec example',
    description: 'The product behind the OpenAPI example tariff codes ELEC-1234-J and GAS-1234-J (sandbox catalogue).',
    is_variable: true,
    is_green: false,
    is_tracker: false,
    is_prepay: false,
    is_business: false,
    is_restricted: false,
    term: null,
    available_from: '2019-01-01T00:00:00Z',
    available_to: null,
    brand: 'TENTACLE_ENERGY',
    fuels: ['electricity', 'gas'],
    half_hourly_rates: false,
  });
  return out;
}

let catalogue: CatalogueProduct[] | undefined;
let byCode: Map<string, CatalogueProduct> | undefined;
let tariffCodes: string[] | undefined;
let tariffSet: Set<string> | undefined;

export function defaultCatalogue(): CatalogueProduct[] {
  catalogue ??= buildCatalogue();
  return catalogue;
}

export function productByCode(code: string): CatalogueProduct | undefined {
  byCode ??= new Map(defaultCatalogue().map((p) => [p.code, p]));
  return byCode.get(code);
}

export function tariffCode(fuel: 'electricity' | 'gas', productCode: string, region: Region): string {
  if (productCode === SPEC_EXAMPLE_PRODUCT) return `${fuel === 'electricity' ? 'ELEC' : 'GAS'}-${productCode}-${region}`;
  return `${fuel === 'electricity' ? 'E' : 'G'}-1R-${productCode}-${region}`;
}

/** Every tariff code of the catalogue, electricity then gas per product, regions A…P. Stable. */
export function catalogueTariffCodes(): string[] {
  tariffCodes ??= defaultCatalogue()
    .filter((p) => p.code !== SPEC_EXAMPLE_PRODUCT)
    .flatMap((p) => p.fuels.flatMap((fuel) => REGIONS.map((r) => tariffCode(fuel, p.code, r))));
  return tariffCodes;
}

export function isKnownTariffCode(code: string): boolean {
  tariffSet ??= new Set(defaultCatalogue().flatMap((p) => p.fuels.flatMap((fuel) => REGIONS.map((r) => tariffCode(fuel, p.code, r)))));
  return tariffSet.has(code);
}

const TARIFF_CODE = /^([EG])-1R-(.+)-([A-Z])$/;
const EXAMPLE_TARIFF_CODE = /^(ELEC|GAS)-(.+)-([A-Z])$/;

export function parseTariffCode(code: string): { fuel: 'electricity' | 'gas'; productCode: string; region: Region } | undefined {
  if (!isKnownTariffCode(code)) return undefined;
  const m = TARIFF_CODE.exec(code);
  if (m) return { fuel: m[1] === 'E' ? 'electricity' : 'gas', productCode: m[2], region: m[3] as Region };
  const x = EXAMPLE_TARIFF_CODE.exec(code);
  return x ? { fuel: x[1] === 'ELEC' ? 'electricity' : 'gas', productCode: x[2], region: x[3] as Region } : undefined;
}

function vatRate(p: CatalogueProduct): number {
  return p.is_business ? 0.2 : 0.05;
}

export function regionTariff(p: CatalogueProduct, fuel: 'electricity' | 'gas', region: Region): RegionTariff {
  const code = tariffCode(fuel, p.code, region);
  const vat = 1 + vatRate(p);
  const standing = fuel === 'electricity' ? 30 + hashUnit(`${code}:sc`) * 30 : 20 + hashUnit(`${code}:sc`) * 15;
  const unit = fuel === 'electricity' ? 15 + hashUnit(`${code}:ur`) * 20 : 4 + hashUnit(`${code}:ur`) * 5;
  const exitFee = p.term ? 75 : 0;
  return {
    code,
    standing_charge_exc_vat: round4(standing),
    standing_charge_inc_vat: round4(standing * vat),
    online_discount_exc_vat: 0,
    online_discount_inc_vat: 0,
    dual_fuel_discount_exc_vat: 0,
    dual_fuel_discount_inc_vat: 0,
    exit_fees_exc_vat: exitFee,
    exit_fees_inc_vat: round4(exitFee * vat),
    exit_fees_type: exitFee ? 'PER_FUEL' : 'NONE',
    standard_unit_rate_exc_vat: round4(unit),
    standard_unit_rate_inc_vat: round4(unit * vat),
  };
}

/** The unit rate of one half-hour slot: constant for most products, moving per slot for half-hourly ones. */
export function unitRateForSlot(p: CatalogueProduct, tariff: string, slotStartMs: number): { value_exc_vat: number; value_inc_vat: number } {
  const region = tariff.slice(-1) as Region;
  const base = regionTariff(p, 'electricity', region).standard_unit_rate_exc_vat;
  const exc = p.half_hourly_rates ? base - 10 + hashUnit(`${tariff}:${slotStartMs}`) * 30 : base;
  return { value_exc_vat: round4(exc), value_inc_vat: round4(exc * (1 + vatRate(p))) };
}
