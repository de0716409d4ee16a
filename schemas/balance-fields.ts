import type { EnergyAccount } from './account';
import { validationError, type ValidationError } from './errors';

/**
 * Where balances go in the payload. The spec's `EnergyAccount` does not declare `ledgers`, but its
 * example sends them and its account-level `last_statement_*` fields are deprecated with
 * `x-use-instead: ledgers.*`; the project sends `ledgers` (an assumption, listed in
 * sandbox/README.md). `account` sends the deprecated account-level fields instead, for a tenant
 * that drops `ledgers`: set `PLATFORM_BALANCE_FIELDS=account`.
 */
export type BalanceFields = 'ledgers' | 'account';

export type BalanceFieldsResult = { ok: true; payload: EnergyAccount } | { ok: false; errors: ValidationError[] };

const STATEMENT_FIELDS = ['last_statement_balance', 'last_statement_closing_date', 'last_statement_issue_date'] as const;

/**
 * `ledgers` → the deprecated account-level fields. One ledger only: the account-level fields hold
 * one statement and one balance, so a second ledger (or an account-level value that disagrees with
 * the ledger's) is an error naming the field, never a silent loss. Pure.
 */
export function toAccountLevelBalances(payload: EnergyAccount): BalanceFieldsResult {
  const ledgers = payload.ledgers;
  if (!ledgers || ledgers.length === 0) return { ok: true, payload };
  if (ledgers.length > 1) {
    return {
      ok: false,
      errors: [
        validationError(
          'ledgers_not_representable_as_account_fields',
          ['ledgers', 1],
          'PLATFORM_BALANCE_FIELDS=account sends one ledger as account-level fields; this account has more than one.',
        ),
      ],
    };
  }
  const [ledger] = ledgers;
  const out: Record<string, unknown> = { ...payload };
  delete out.ledgers;
  const errors: ValidationError[] = [];
  const put = (key: string, value: unknown, from: string) => {
    if (value === undefined) return;
    if (out[key] !== undefined && out[key] !== value) {
      errors.push(
        validationError(
          'ledgers_not_representable_as_account_fields',
          ['ledgers', 0, from],
          `${key} is set on the account and differs from the ledger's ${from}.`,
        ),
      );
      return;
    }
    out[key] = value;
  };
  for (const f of STATEMENT_FIELDS) put(f, ledger[f], f);
  put('transfer_balance', ledger.ledger_balance, 'ledger_balance');
  for (const list of ['current_statement_transactions', 'historical_statement_transactions'] as const) {
    const fromLedger = ledger[list] ?? [];
    if (fromLedger.length > 0) out[list] = [...(payload[list] ?? []), ...fromLedger];
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, payload: out as EnergyAccount };
}

/** The payload as the configured balance fields want it. */
export function applyBalanceFields(payload: EnergyAccount, mode: BalanceFields): BalanceFieldsResult {
  return mode === 'account' ? toAccountLevelBalances(payload) : { ok: true, payload };
}
