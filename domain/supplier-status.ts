// Apart from domain/inputs.ts so the CLI's argument parser (cli/commands/supplier.ts) knows them without loading zod.
export const SUPPLIER_STATUSES = ['ONGOING', 'PAUSED', 'COMPLETE'] as const;
export type SupplierStatus = (typeof SUPPLIER_STATUSES)[number];
