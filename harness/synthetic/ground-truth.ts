import { z } from 'zod';
import type { CodeMapping } from '../../source/mapping';
import type { SourceAccount, SourceRecord } from '../../source/types';

/**
 * What the synthetic generator promises (synthetic/generator.ts): the defects it plants, the
 * pipeline stages in order, and the outcome each account must reach (ground truth), with the
 * options a dataset is generated from.
 */

export const DEFECT_KINDS = [
  'invalid_phone',
  'impossible_date',
  'end_before_start',
  'missing_required_nested_field',
  'unknown_tariff_code',
  'missing_document',
  'duplicate_meter_point',
  'supplier_conflict',
] as const;
export const defectKindSchema = z.enum(DEFECT_KINDS);
export type DefectKind = z.infer<typeof defectKindSchema>;

export const STAGES = ['transform', 'validate', 'catalogue', 'documents', 'platform'] as const;
export const stageSchema = z.enum(STAGES);
export type Stage = z.infer<typeof stageSchema>;

export const expectedOutcomeSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('completed') }),
  // attr null: the outcome names no field (the platform's event does not, and the pre-flight cannot tell which).
  z.object({ outcome: z.literal('failed'), stage: stageSchema, code: z.string(), attr: z.string().nullable() }),
]);
export type ExpectedOutcome = z.infer<typeof expectedOutcomeSchema>;

export const groundTruthSchema = z.object({
  external_account_number: z.string(),
  defect: defectKindSchema.nullable(),
  expected: expectedOutcomeSchema,
});
export type GroundTruth = z.infer<typeof groundTruthSchema>;

export interface GeneratedDocument {
  /** Path under the source documents folder (= legacy documents.storage_path). */
  relativePath: string;
  bytes: Buffer;
}

export interface DatasetItem {
  /** What an adapter yields for this account number. */
  source: SourceAccount;
  /** The legacy records as the export holds them: source's record first, then any conflicting ones. */
  records: SourceRecord[];
  expected: GroundTruth;
  /** Files to place in the source documents folder (a `missing_document` account lacks one). */
  documents: GeneratedDocument[];
}

export interface GenerateOptions {
  accounts: number;
  seed: number;
  /** Share of accounts with a defect; default 0.2. */
  defectRate?: number;
  /** Relative weights of the defect kinds; default equal. A kind with weight 0 never occurs. */
  mix?: Partial<Record<DefectKind, number>>;
  /** Default `LGC-`. */
  accountNumberPrefix?: string;
  /** Added to every legacy row id, so several datasets can share one legacy schema. Default 0. */
  accountIdOffset?: number;
  /** Defaults to source/default-mapping.json. */
  mapping?: CodeMapping;
  /** Tariff codes the platform knows; default: the platform catalogue. */
  catalogue?: ReadonlySet<string>;
}
