import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Custom search attributes: the UI's filters for runs and accounts. Keyword values only, and never
// personal data (search attributes are not encrypted by the payload codec).
export const KmKind = defineSearchAttributeKey('KmKind', SearchAttributeType.KEYWORD); // 'account' | 'run'
export const KmRunId = defineSearchAttributeKey('KmRunId', SearchAttributeType.KEYWORD);
export const KmSupplier = defineSearchAttributeKey('KmSupplier', SearchAttributeType.KEYWORD);
export const KmAccount = defineSearchAttributeKey('KmAccount', SearchAttributeType.KEYWORD);
export const KmStage = defineSearchAttributeKey('KmStage', SearchAttributeType.KEYWORD);
export const KmOutcome = defineSearchAttributeKey('KmOutcome', SearchAttributeType.KEYWORD);
export const KmErrorCode = defineSearchAttributeKey('KmErrorCode', SearchAttributeType.KEYWORD);

export const ALL_SEARCH_ATTRIBUTES = [KmKind, KmRunId, KmSupplier, KmAccount, KmStage, KmOutcome, KmErrorCode];

/** `--search-attribute Name=Keyword` arguments for the dev server, which registers them at start. */
export function devServerSearchAttributeArgs(): string[] {
  return ALL_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]);
}
