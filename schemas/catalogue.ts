import { z } from 'zod';

/** The public product catalogue (platform-rest-and-data-import.md): list envelope, product, unit rate. */

/** `{count, next, previous, results}`; `next` is followed explicitly by the caller. */
export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().min(0),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}
export type ListEnvelope<T> = { count: number; next: string | null; previous: string | null; results: T[] };

export const linkSchema = z.object({ href: z.string(), method: z.string(), rel: z.string() });

export const productSchema = z.object({
  code: z.string().min(1),
  direction: z.string(), // only IMPORT is documented; the full set is not
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
  links: z.array(linkSchema),
  brand: z.string(),
});
export type Product = z.infer<typeof productSchema>;

export const standardUnitRateSchema = z.object({
  value_exc_vat: z.number(),
  value_inc_vat: z.number(),
  valid_from: z.string(),
  // The brief types it as a string; open-ended rates are null in practice, so tolerate that.
  valid_to: z.string().nullable(),
  payment_method: z.string().nullable(),
});
export type StandardUnitRate = z.infer<typeof standardUnitRateSchema>;

export const productListSchema = listEnvelopeSchema(productSchema);
export const standardUnitRateListSchema = listEnvelopeSchema(standardUnitRateSchema);
