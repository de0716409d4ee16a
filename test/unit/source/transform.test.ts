import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { energyAccountSchema } from '../../../schemas/account';
import { describeDocuments } from '../../../source/documents';
import { generateDataset } from '../../../harness/synthetic/generator';
import { type CodeMapping, MappingError, defaultMapping, parseMapping } from '../../../source/mapping';
import { transformAccount } from '../../../source/transform';
import type { SourceAccount } from '../../../source/types';

const ctx = { importSupplierCode: 'DEMO-SUPPLIER', mapping: defaultMapping() };
const clean = () => [...generateDataset({ accounts: 150, seed: 31, defectRate: 0 })];
const dir = path.resolve('.data/test-source-transform');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function emptyValues(v: unknown, at: string, out: string[]): string[] {
  if (v === null || v === '' || v === undefined) out.push(at);
  else if (Array.isArray(v)) v.forEach((x, i) => emptyValues(x, `${at}.${i}`, out));
  else if (typeof v === 'object') for (const [k, x] of Object.entries(v)) emptyValues(x, at ? `${at}.${k}` : k, out);
  else if (typeof v === 'string' && v !== v.trim()) out.push(`${at} (untrimmed)`);
  return out;
}

describe('transformAccount', () => {
  it('builds payloads with no null, blank or untrimmed values, all in the v2 schema', () => {
    for (const item of clean()) {
      const t = transformAccount(item.source, ctx);
      if (!t.ok) throw new Error(JSON.stringify(t.errors));
      expect(emptyValues(t.payload, '', [])).toEqual([]);
      expect(t.payload.import_supplier).toBe('DEMO-SUPPLIER');
      expect(t.payload.external_account_number).toBe(item.source.account.account_number);
      expect(energyAccountSchema.safeParse(t.payload).success).toBe(true);
    }
  });

  it('normalises messy contact fields and postcodes', () => {
    const item = clean()[0];
    const src: SourceAccount = structuredClone(item.source);
    Object.assign(src.contacts[0], {
      is_primary: true,
      mobile_phone: '+44 7123 456789',
      home_phone: '(020) 7234 3456',
      date_of_birth: '3/7/1980 ',
      first_name: ' Bob ',
      email: ' Bob@Example.COM ',
    });
    src.supply_addresses[0].postcode = 'w1f9de ';
    src.account.billing_postcode = ' w1f  9de';
    const t = transformAccount(src, ctx);
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    expect(t.payload.customers?.[0]).toMatchObject({
      mobile: '07123456789',
      landline: '02072343456',
      date_of_birth: '1980-07-03',
      given_name: 'Bob',
      email: 'bob@example.com',
    });
    expect(t.payload.supply_addresses?.[0].supply_postcode).toBe('W1F 9DE');
    expect(t.payload.billing_postcode).toBe('W1F 9DE');
  });

  it('maps tariffs to the region of the meter point, and reports an unmapped legacy code with its source field', () => {
    const src: SourceAccount = structuredClone(clean()[1].source);
    const mp = src.supply_addresses[0].meter_points[0];
    const t = transformAccount(src, ctx);
    expect(t.ok).toBe(true);
    if (t.ok) expect(t.payload.supply_addresses?.[0].meter_points[0].agreements?.[0].tariff_code).toMatch(new RegExp(`^[EG]-1R-.+-${mp.gsp_group!.slice(1)}$`));
    mp.agreements[0].tariff_code = 'MYSTERY-TARIFF';
    src.transactions[0].txn_type = 'XFR';
    const bad = transformAccount(src, ctx);
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors).toContainEqual(
      expect.objectContaining({
        code: 'unmapped_code',
        attr: 'supply_addresses.0.meter_points.0.agreements.0.tariff_code',
        sourceField: 'agreements.tariff_code',
      }),
    );
    expect(bad.errors).toContainEqual(expect.objectContaining({ code: 'unmapped_code', sourceField: 'transactions.txn_type' }));
  });

  it('keeps the ledger consistent: historical transactions sum to the last statement balance', () => {
    for (const item of clean().slice(0, 40)) {
      const t = transformAccount(item.source, ctx);
      if (!t.ok) throw new Error('unexpected');
      const ledger = t.payload.ledgers![0];
      const signed = (x: { type: string; amount: string }) => (x.type === 'PAYMENT' || x.type === 'CREDIT' ? 1 : -1) * Math.round(Number(x.amount) * 100);
      const hist = (ledger.historical_statement_transactions ?? []).reduce((s, x) => s + signed(x), 0);
      const cur = (ledger.current_statement_transactions ?? []).reduce((s, x) => s + signed(x), 0);
      expect(Math.round(Number(ledger.last_statement_balance ?? '0') * 100)).toBe(hist);
      expect(Math.round(Number(t.payload.transfer_balance) * 100)).toBe(hist + cur);
      for (const x of ledger.historical_statement_transactions ?? []) expect(x.transaction_date <= t.payload.last_billed_to_date!).toBe(true);
      for (const x of ledger.current_statement_transactions ?? []) expect(x.transaction_date > t.payload.last_billed_to_date!).toBe(true);
    }
  });

  it('lists documents with payload paths under the supplier root, and measures them', async () => {
    const item = clean().find((i) => i.source.notes.some((n) => n.document_id !== null))!;
    for (const d of item.documents) {
      fs.mkdirSync(path.dirname(path.join(dir, d.relativePath)), { recursive: true });
      fs.writeFileSync(path.join(dir, d.relativePath), d.bytes);
    }
    const t = transformAccount(item.source, ctx);
    if (!t.ok) throw new Error('unexpected');
    const n = item.source.account.account_number;
    expect(t.documents.length).toBe(item.source.documents.length);
    expect(t.documents.some((d) => d.payloadPath.startsWith(`/bills/${n}/`) && d.attr === 'statements.0.statement_path')).toBe(true);
    expect(t.documents.some((d) => d.payloadPath.startsWith(`/notes/${n}/`) && /^notes\.\d+\.document_paths\.0\.document_path$/.test(d.attr))).toBe(true);
    expect(t.payload.statements?.[0].statement_path).toBe(t.documents.find((d) => d.attr === 'statements.0.statement_path')!.payloadPath);
    const described = await describeDocuments(t.documents, dir);
    expect(described.missing).toEqual([]);
    for (const d of described.documents) {
      const bytes = fs.readFileSync(path.join(dir, d.sourcePath));
      expect(d.size).toBe(bytes.length);
      expect(d.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    fs.rmSync(path.join(dir, described.documents[0].sourcePath));
    const again = await describeDocuments(t.documents, dir);
    expect(again.missing).toEqual([expect.objectContaining({ code: 'path_does_not_exist_in_file_store', attr: described.documents[0].attr })]);
    expect((await describeDocuments([{ ...t.documents[0], sourcePath: '../../etc/passwd' }], dir)).missing).toHaveLength(1);
  });
});

describe('code mapping', () => {
  it('rejects a malformed table with a coded error', () => {
    const bad = structuredClone(defaultMapping()) as unknown as { paymentMethods: Record<string, unknown> };
    bad.paymentMethods.DD = { means: 'CHEQUE_BOOK', payment_type: 'CHEQUE', repayment_type: 'BACS' };
    expect(() => parseMapping(bad)).toThrow(MappingError);
    const ok: CodeMapping = parseMapping(structuredClone(defaultMapping()));
    expect(ok.tariffs['STDVAR-E']).toEqual({ fuel: 'ELECTRICITY', product_code: 'VAR-22-11-01' });
  });
});
