import type { AccountOutcome } from '../domain/inputs';

/**
 * The ledger's columns of an account's outcome record (`accountOutcomeSchema`, domain/inputs.ts):
 * each field and its column in migrate.account_attempts, listed once. A field added to the record
 * and not here fails the typecheck; the reads, the write and the row mapping below derive from it.
 */
export const OUTCOME_COLUMNS = {
  externalAccountNumber: 'external_account_number',
  outcome: 'outcome',
  stage: 'stage',
  code: 'error_code',
  attr: 'error_attr',
  accountNumber: 'platform_account_number',
  source: 'outcome_source',
} as const satisfies { [K in keyof Required<AccountOutcome>]: string };

type Field = keyof typeof OUTCOME_COLUMNS;
const FIELDS = Object.keys(OUTCOME_COLUMNS) as Field[];

/** An attempt's outcome columns as the ledger returns them (null: not recorded). */
export type OutcomeRow = { [K in Field as (typeof OUTCOME_COLUMNS)[K]]: string | null };

/** The outcome columns, for a select list. */
export const OUTCOME_SELECT = FIELDS.map((f) => OUTCOME_COLUMNS[f]).join(', ');

/**
 * `col = $n, …` setting every outcome column but the account's number (the row's key), numbered
 * from `first`, and its values in the same order (null for a field the outcome leaves out).
 */
function outcomeAssignments(o: AccountOutcome, first: number): { sql: string; values: Array<string | null> } {
  const fields = FIELDS.filter((f) => f !== 'externalAccountNumber');
  return {
    sql: fields.map((f, i) => `${OUTCOME_COLUMNS[f]} = $${first + i}`).join(', '),
    values: fields.map((f) => o[f] ?? null),
  };
}

/** A statement part and the values its placeholders take. */
export interface SqlPart {
  sql: string;
  values: Array<string | null>;
}

/**
 * The account's one outcome set ($1 run, $2 account; its values numbered from `first`), only while
 * none is recorded: an outcome is set once and never overwritten.
 */
export function outcomeUpdate(o: AccountOutcome, first: number): SqlPart {
  const set = outcomeAssignments(o, first);
  return {
    sql: `update migrate.account_attempts set ${set.sql}, finished_at = now(), updated_at = now()
          where run_id = $1 and external_account_number = $2 and outcome is null`,
    values: set.values,
  };
}

/**
 * The outcome columns of many outcomes for a bulk insert: the column list, `$first::text[], …` (one
 * array parameter a column, for `unnest`), and those arrays (null for a field an outcome leaves out).
 */
export function outcomeArrays(outcomes: AccountOutcome[], first: number): { columns: string; params: string; values: Array<Array<string | null>> } {
  return {
    columns: OUTCOME_SELECT,
    params: FIELDS.map((_, i) => `$${first + i}::text[]`).join(', '),
    values: FIELDS.map((f) => outcomes.map((o) => o[f] ?? null)),
  };
}

/** The outcome a ledger row records, the columns left empty left out. */
export function rowToOutcome(row: Partial<Record<string, unknown>>): AccountOutcome {
  const o: Record<string, string> = {};
  for (const f of FIELDS) {
    const v = row[OUTCOME_COLUMNS[f]];
    if (v) o[f] = String(v);
  }
  return o as AccountOutcome;
}
