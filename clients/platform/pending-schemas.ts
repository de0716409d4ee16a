import { z } from 'zod';

// TEMPORARY — minimal local schemas until schemas/import-status.ts and schemas/catalogue.ts land
// (written in parallel). Replace the imports in data-import.ts / catalogue.ts and delete this file.

export const importStatusResponseSchema = z.looseObject({
  status: z.string(),
  kraken_identifier: z.string().nullish(),
  created_at: z.string(),
  modified_at: z.string(),
  latest_event: z.looseObject({ event: z.string(), occurred_at: z.string(), data: z.unknown() }).nullish(),
  latest_error: z.looseObject({ code: z.string().nullish(), detail: z.string().nullish(), domain: z.string().nullish() }).nullish(),
});
export type ImportStatusResponse = z.infer<typeof importStatusResponseSchema>;

export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().nonnegative(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}

export const productSchema = z.looseObject({ code: z.string().min(1) });
export type Product = z.infer<typeof productSchema>;

/** Region key (`_A`…`_P`) → payment method (`direct_debit_monthly`, `varying`, …) → tariff. */
const tariffsByRegionSchema = z.record(z.string(), z.record(z.string(), z.looseObject({ code: z.string() })));
export const productDetailSchema = productSchema.extend({
  single_register_electricity_tariffs: tariffsByRegionSchema.optional(),
  dual_register_electricity_tariffs: tariffsByRegionSchema.optional(),
  single_register_gas_tariffs: tariffsByRegionSchema.optional(),
});
export type ProductDetail = z.infer<typeof productDetailSchema>;

export const standardUnitRateSchema = z.looseObject({
  value_exc_vat: z.number(),
  value_inc_vat: z.number(),
  valid_from: z.string(),
  valid_to: z.string().nullable(),
  payment_method: z.string().nullish(),
});
export type StandardUnitRate = z.infer<typeof standardUnitRateSchema>;
