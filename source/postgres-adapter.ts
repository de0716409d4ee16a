import type { Pool } from 'pg';
// Side effect: int8 columns parse as numbers (the legacy ids), the pool's contract.
import '../clients/db';
import type { SourceAdapter } from './adapter-contract';
import type {
  AccountRow,
  AgreementRow,
  BalanceRow,
  BillRow,
  ContactRow,
  DocumentRow,
  MeterPointRow,
  MeterRow,
  NoteRow,
  PaymentScheduleRow,
  ReadingRow,
  RegisterRow,
  SourceAccount,
  SupplyAddressRow,
  TransactionRow,
} from './types';

/**
 * The legacy database (schema `legacy`). Pages of account numbers by keyset; each page's rows are
 * loaded with one `= ANY($1)` query per table, so a batch of 500 accounts costs ~13 queries and
 * nothing is ever loaded table-wide. Of several rows holding one number, the lowest account_id is
 * the account and the others are reported as conflicting.
 */

function groupBy<T, K>(rows: T[], key: (r: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}

export class PostgresSourceAdapter implements SourceAdapter {
  constructor(private readonly pool: Pool) {}

  async listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]> {
    const r = await this.pool.query<{ account_number: string }>(
      `SELECT DISTINCT account_number FROM legacy.accounts
        WHERE $1::text IS NULL OR account_number > $1
        ORDER BY account_number LIMIT $2`,
      [opts.after ?? null, opts.limit],
    );
    return r.rows.map((x) => x.account_number);
  }

  async getAccount(externalAccountNumber: string): Promise<SourceAccount | undefined> {
    return (await this.loadAccounts([externalAccountNumber]))[0];
  }

  async *stream(opts?: { batchSize?: number }): AsyncIterable<SourceAccount> {
    const batchSize = opts?.batchSize ?? 500;
    let after: string | undefined;
    for (;;) {
      const numbers = await this.listAccountNumbers({ after, limit: batchSize });
      if (numbers.length === 0) return;
      yield* await this.loadAccounts(numbers);
      after = numbers[numbers.length - 1];
    }
  }

  async close(): Promise<void> {
    // The pool belongs to the caller.
  }

  /** The accounts holding `numbers`, in the order given; unknown numbers are skipped. */
  async loadAccounts(numbers: string[]): Promise<SourceAccount[]> {
    const q = async <T>(sql: string, params: unknown[]): Promise<T[]> => (await this.pool.query(sql, params)).rows as T[];
    const accountRows = await q<AccountRow>(
      `SELECT * FROM legacy.accounts WHERE account_number = ANY($1::text[]) ORDER BY account_number, account_id`,
      [numbers],
    );
    const byNumber = groupBy(accountRows, (a) => a.account_number);
    const primaries = numbers.flatMap((n) => byNumber.get(n)?.slice(0, 1) ?? []);
    const ids = primaries.map((a) => a.account_id);
    if (ids.length === 0) return [];

    const byAccount = (table: string, order: string) =>
      `SELECT * FROM legacy.${table} WHERE account_id = ANY($1::bigint[]) ORDER BY ${order}`;
    const [contacts, balances, addresses, transactions, schedules, notes, bills, documents] = await Promise.all([
      q<ContactRow>(byAccount('contacts', 'contact_id'), [ids]),
      q<BalanceRow>(byAccount('balances', 'account_id'), [ids]),
      q<SupplyAddressRow>(byAccount('supply_addresses', 'supply_address_id'), [ids]),
      q<TransactionRow>(byAccount('transactions', 'transaction_id'), [ids]),
      q<PaymentScheduleRow>(byAccount('payment_schedules', 'schedule_id'), [ids]),
      q<NoteRow>(byAccount('notes', 'note_id'), [ids]),
      q<BillRow>(byAccount('bills', 'bill_id'), [ids]),
      q<DocumentRow>(byAccount('documents', 'document_id'), [ids]),
    ]);
    const meterPoints = await q<MeterPointRow>(
      `SELECT * FROM legacy.meter_points WHERE supply_address_id = ANY($1::bigint[]) ORDER BY meter_point_id`,
      [addresses.map((a) => a.supply_address_id)],
    );
    const mpIds = meterPoints.map((m) => m.meter_point_id);
    const [agreements, meters] = await Promise.all([
      q<AgreementRow>(`SELECT * FROM legacy.agreements WHERE meter_point_id = ANY($1::bigint[]) ORDER BY agreement_id`, [mpIds]),
      q<MeterRow>(`SELECT * FROM legacy.meters WHERE meter_point_id = ANY($1::bigint[]) ORDER BY meter_id`, [mpIds]),
    ]);
    const meterIds = meters.map((m) => m.meter_id);
    const [registers, readings] = await Promise.all([
      q<RegisterRow>(`SELECT * FROM legacy.registers WHERE meter_id = ANY($1::bigint[]) ORDER BY register_row_id`, [meterIds]),
      q<ReadingRow>(`SELECT * FROM legacy.readings WHERE meter_id = ANY($1::bigint[]) ORDER BY reading_id`, [meterIds]),
    ]);

    const registersBy = groupBy(registers, (r) => r.meter_id);
    const readingsBy = groupBy(readings, (r) => r.meter_id);
    const metersBy = groupBy(
      meters.map((m) => ({ ...m, registers: registersBy.get(m.meter_id) ?? [], readings: readingsBy.get(m.meter_id) ?? [] })),
      (m) => m.meter_point_id,
    );
    const agreementsBy = groupBy(agreements, (a) => a.meter_point_id);
    const mpBy = groupBy(
      meterPoints.map((mp) => ({ ...mp, agreements: agreementsBy.get(mp.meter_point_id) ?? [], meters: metersBy.get(mp.meter_point_id) ?? [] })),
      (mp) => mp.supply_address_id,
    );
    const addressesBy = groupBy(
      addresses.map((a) => ({ ...a, meter_points: mpBy.get(a.supply_address_id) ?? [] })),
      (a) => a.account_id,
    );
    const contactsBy = groupBy(contacts, (r) => r.account_id);
    const balancesBy = new Map(balances.map((b) => [b.account_id, b]));
    const txBy = groupBy(transactions, (r) => r.account_id);
    const schedulesBy = groupBy(schedules, (r) => r.account_id);
    const notesBy = groupBy(notes, (r) => r.account_id);
    const billsBy = groupBy(bills, (r) => r.account_id);
    const documentsBy = groupBy(documents, (r) => r.account_id);

    return primaries.map((account) => {
      const id = account.account_id;
      return {
        account,
        contacts: contactsBy.get(id) ?? [],
        balance: balancesBy.get(id) ?? null,
        supply_addresses: addressesBy.get(id) ?? [],
        transactions: txBy.get(id) ?? [],
        payment_schedules: schedulesBy.get(id) ?? [],
        notes: notesBy.get(id) ?? [],
        bills: billsBy.get(id) ?? [],
        documents: documentsBy.get(id) ?? [],
        conflicting_account_ids: (byNumber.get(account.account_number) ?? []).slice(1).map((a) => a.account_id),
      };
    });
  }
}
