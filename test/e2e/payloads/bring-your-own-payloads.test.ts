import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { createS3Client, ensureBucket } from '../../../clients/aws';
import { requestExample } from '../../../contract';
import { collectDocumentPaths } from '../../../schemas/document-path';
import type { EnergyAccount } from '../../../schemas/account';
import { defaultMapping } from '../../../source/mapping';
import { transformAccount } from '../../../source/transform';
import { minimalPdf } from '../../../harness/synthetic/pdf';
import { generateDataset } from '../../../harness/synthetic/generator';
import { attempts, useE2E, runToEnd, uniqueId, type E2E } from '../helpers';
import { validateAccount } from '../../../schemas/validate';
import { everyField, filledWhileValid, pathsOf } from '../../unit/schemas/contract-payload';

const run = promisify(execFile);

/** What the sandbox recorded it was sent for an account (the last import process). */
async function received(e: E2E, supplier: string, ext: string): Promise<unknown> {
  const r = await e.pool.query(
    `select payload from sandbox.import_processes where import_supplier = $1 and external_identifier = $2 order by id desc limit 1`,
    [supplier, ext],
  );
  return r.rows[0]?.payload;
}

/**
 * The spec's two example payloads (renamed into this run) and generated accounts transformed by the
 * legacy path, with every document they name written under `docs` at its payload path.
 */
function goodPayloads(e: E2E, tag: string) {
  const supplier = e.config.IMPORT_SUPPLIER_CODE;
  const dir = path.join(e.config.DATA_DIR, 'payloads', tag);
  const docs = path.join(dir, 'documents');
  fs.mkdirSync(docs, { recursive: true });
  // The spec's examples were valid the day they were written: a dunning path may not start in the past.
  const nextYear = `${new Date().getUTCFullYear() + 1}-01-01`;
  const examples = ['/v2/data-import/accounts/', '/v2/data-import/accounts/validate/'].map((route, i) => {
    const example = requestExample(route, 'post') as EnergyAccount;
    if (example.dunning_path?.start_date) example.dunning_path.start_date = nextYear;
    return { ...example, import_supplier: supplier, external_account_number: `${tag}-EX${i}` };
  });
  const generated = [...generateDataset({ accounts: 4, seed: 31, defectRate: 0, accountNumberPrefix: `${tag}-G` })].map((item) => {
    const t = transformAccount(item.source, { importSupplierCode: supplier, mapping: defaultMapping() });
    if (!t.ok) throw new Error(`generated account did not transform: ${JSON.stringify(t.errors)}`);
    return t.payload;
  });
  const good = [...examples, ...generated];
  for (const p of good) {
    for (const ref of collectDocumentPaths(p)) {
      const file = path.join(docs, ref.path);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, minimalPdf([ref.path]));
    }
  }
  return { dir, docs, examples, generated, good };
}

describe('bring your own data: payloads go in unchanged', () => {
  const e = useE2E();

  it('sends what the file held, field for field; fails each bad line alone, with its code; validate agrees account for account', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const tag = uniqueId('BYO');
    const { dir, docs, generated, good } = goodPayloads(e, tag);
    const base = generated[0];
    const typo: any = structuredClone({ ...base, external_account_number: `${tag}-TYPO` });
    typo.customers[0].familyname = typo.customers[0].family_name;
    typo.supply_addresses[0].colour = 'red';
    const otherSupplier = { ...structuredClone(base), external_account_number: `${tag}-SUPP`, import_supplier: 'SOMEONE-ELSE' };
    const missingDoc = {
      ...structuredClone(base),
      external_account_number: `${tag}-NODOC`,
      notes: [],
      statements: [{ ...base.statements![0], statement_path: `/bills/${tag}/absent.pdf` }],
    };
    // Written as text: JSON.stringify itself overflows the stack on such a value.
    const deep = JSON.stringify({ ...base, external_account_number: `${tag}-DEEP`, metadata: [{ key: 'k', value: 'DEEP' }] }).replace(
      '"DEEP"',
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
    );
    const dup = { ...structuredClone(base), external_account_number: `${tag}-DUP` };
    const huge = `{"import_supplier":"${supplier}","external_account_number":"${tag}-HUGE","notes":[{"body":"${'x'.repeat(17 * 1024 * 1024)}"}]}`;

    const lines = [
      ...good.map((p) => JSON.stringify(p)),
      JSON.stringify(typo),
      '{"import_supplier": "not closed"', // line 8: not JSON
      '[1, 2, 3]', // line 9: not an object
      JSON.stringify(otherSupplier),
      JSON.stringify(missingDoc),
      deep,
      JSON.stringify(dup),
      '',
      JSON.stringify(dup),
      huge, // line 16
    ];
    const file = path.join(dir, 'accounts.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n');

    const runId = uniqueId('run-byo-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: supplier,
      source: { kind: 'payloads', path: file, documents: docs },
      selection: { kind: 'all' },
      concurrency: 10,
    });
    expect(result.state).toBe('completed');

    const rows = await attempts(e, runId);
    const failure = (ext: string) => {
      const r = rows.get(ext);
      return { ext, outcome: r?.outcome, stage: r?.stage, code: r?.error_code, attr: r?.error_attr };
    };
    for (const p of good) {
      const ext = p.external_account_number!;
      expect(failure(ext)).toMatchObject({ ext, outcome: 'completed', code: null, attr: null });
      expect(await received(e, supplier, ext)).toEqual(p);
    }
    expect([
      failure(`${tag}-TYPO`),
      failure('#line-8'),
      failure('#line-9'),
      failure(`${tag}-SUPP`),
      failure(`${tag}-NODOC`),
      failure(`${tag}-DEEP`),
      failure(`${tag}-DUP`),
      failure('#line-16'),
    ]).toEqual([
      { ext: `${tag}-TYPO`, outcome: 'failed', stage: 'validate', code: 'undocumented_field', attr: 'customers.0.familyname' },
      { ext: '#line-8', outcome: 'failed', stage: 'source', code: 'invalid_json', attr: null },
      { ext: '#line-9', outcome: 'failed', stage: 'source', code: 'payload_not_an_object', attr: null },
      { ext: `${tag}-SUPP`, outcome: 'failed', stage: 'validate', code: 'import_supplier_mismatch', attr: 'import_supplier' },
      { ext: `${tag}-NODOC`, outcome: 'failed', stage: 'documents', code: 'path_does_not_exist_in_file_store', attr: 'statements.0.statement_path' },
      { ext: `${tag}-DEEP`, outcome: 'failed', stage: 'validate', code: 'nesting_too_deep', attr: 'metadata.0.value.a.a.a.a.a' },
      { ext: `${tag}-DUP`, outcome: 'failed', stage: 'source', code: 'duplicate_external_account_number', attr: 'external_account_number' },
      { ext: '#line-16', outcome: 'failed', stage: 'source', code: 'payload_too_large', attr: null },
    ]);
    expect(rows.size).toBe(good.length + 8);
    // Every undocumented key is listed, not only the first.
    const typoErrors = await e.pool.query(`select attr, code from migrate.account_errors where run_id = $1 and external_account_number = $2 order by attr`, [
      runId,
      `${tag}-TYPO`,
    ]);
    expect(typoErrors.rows).toEqual([
      { attr: 'customers.0.familyname', code: 'undocumented_field' },
      { attr: 'supply_addresses.0.colour', code: 'undocumented_field' },
    ]);
    for (const ext of [`${tag}-TYPO`, `${tag}-SUPP`, `${tag}-DEEP`, `${tag}-DUP`]) expect(await received(e, supplier, ext)).toBeUndefined();

    // validate on the same file: the same accounts fail, with the same first code (documents are the run's to read).
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'validate', file, '--supplier', supplier, '--json'], {
      env: { ...process.env, ...e.env },
      maxBuffer: 64 << 20,
    }).catch((err) => err);
    const report = JSON.parse(stdout) as { accounts: Array<{ externalAccountNumber: string; errors: Array<{ code: string; attr: string }> }> };
    const byValidate = new Map(report.accounts.map((a) => [a.externalAccountNumber, a.errors[0]?.code ?? 'valid']));
    const byRun = new Map([...rows].map(([ext, r]) => [ext, r.outcome === 'completed' || r.stage === 'documents' ? 'valid' : r.error_code]));
    expect(Object.fromEntries(byValidate)).toEqual(Object.fromEntries(byRun));
  });

  it('a payload table: keyset pages, each payload arrives as the row held it; a duplicate number and an undocumented key fail alone', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const tag = uniqueId('BYT');
    const { docs, generated, good } = goodPayloads(e, tag);
    const schema = `team_${tag.toLowerCase()}`;
    await e.pool.query(`create schema ${schema}; create table ${schema}.kraken_payloads (external_account_number text, payload jsonb)`);
    const typo: any = { ...structuredClone(generated[0]), external_account_number: `${tag}-TYPO` };
    typo.customers[0].familyname = 'x';
    const dup = { ...structuredClone(generated[1]), external_account_number: `${tag}-DUP` };
    const rows = [...good, typo, dup, dup];
    for (const p of rows) await e.pool.query(`insert into ${schema}.kraken_payloads values ($1, $2)`, [p.external_account_number, JSON.stringify(p)]);

    const runId = uniqueId('run-byt-');
    // A page of 2: the run pages through the table by keyset.
    const result = await runToEnd(e, {
      runId,
      supplierCode: supplier,
      source: { kind: 'payloads-table', table: `${schema}.kraken_payloads`, documents: docs },
      selection: { kind: 'all' },
      pageSize: 2,
    });
    expect(result.state).toBe('completed');
    const ledger = await attempts(e, runId);
    expect(ledger.size).toBe(good.length + 2);
    for (const p of good) {
      expect({ ext: p.external_account_number, outcome: ledger.get(p.external_account_number!)?.outcome }).toEqual({
        ext: p.external_account_number,
        outcome: 'completed',
      });
      expect(await received(e, supplier, p.external_account_number!)).toEqual(p);
    }
    const failed = (ext: string) => ({ code: ledger.get(ext)?.error_code, attr: ledger.get(ext)?.error_attr });
    expect(failed(`${tag}-TYPO`)).toEqual({ code: 'undocumented_field', attr: 'customers.0.familyname' });
    expect(failed(`${tag}-DUP`)).toEqual({ code: 'duplicate_external_account_number', attr: 'external_account_number' });
  });

  it("documents from the team's bucket (--documents s3://bucket/prefix) are copied under the supplier's root; an absent one fails its account alone", async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const tag = uniqueId('BYS');
    const { dir, generated } = goodPayloads(e, tag);
    const s3 = createS3Client(e.config);
    const teamBucket = `team-${tag.toLowerCase()}`;
    await ensureBucket(s3, teamBucket);
    const [withDocs, missing] = generated;
    const expectedKeys: Array<{ key: string; body: Buffer }> = [];
    for (const ref of collectDocumentPaths(withDocs)) {
      const body = minimalPdf([tag, ref.path]);
      await s3.send(new PutObjectCommand({ Bucket: teamBucket, Key: `exports/2026${ref.path}`, Body: body }));
      expectedKeys.push({ key: `${e.config.IMPORT_SUPPLIER_DOCUMENT_ROOT}${ref.path}`, body });
    }
    expect(expectedKeys.length).toBeGreaterThan(0);
    const file = path.join(dir, 'from-bucket.jsonl.gz');
    fs.writeFileSync(file, gzipSync([withDocs, missing].map((p) => JSON.stringify(p)).join('\n')));

    const runId = uniqueId('run-bys-');
    await runToEnd(e, {
      runId,
      supplierCode: supplier,
      source: { kind: 'payloads', path: file, documents: `s3://${teamBucket}/exports/2026` },
      selection: { kind: 'all' },
    });
    const ledger = await attempts(e, runId);
    expect(ledger.get(withDocs.external_account_number!)?.outcome).toBe('completed');
    expect(await received(e, supplier, withDocs.external_account_number!)).toEqual(withDocs);
    for (const { key, body } of expectedKeys) {
      const got = await s3.send(new GetObjectCommand({ Bucket: e.config.PLATFORM_BUCKET, Key: key }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body), key).toBe(true);
    }
    expect({ code: ledger.get(missing.external_account_number!)?.error_code, stage: ledger.get(missing.external_account_number!)?.stage }).toEqual({
      code: 'path_does_not_exist_in_file_store',
      stage: 'documents',
    });
  });

  it('payloads filled from the contract with every documented field the rules allow reach the sandbox unchanged', async () => {
    const supplier = e.config.IMPORT_SUPPLIER_CODE;
    const tag = uniqueId('BYOALL');
    const { dir, docs, examples, generated } = goodPayloads(e, tag);
    const today = new Date().toISOString().slice(0, 10);
    // The sandbox's catalogue is platform state the filler cannot know: a meter point it adds may
    // carry only tariffs the bases already use (generated ones come from the catalogue).
    const tariffsOf = (v: unknown): string[] => JSON.stringify(v).match(/"tariff_code":"[^"]*"/g) ?? [];
    const known = new Set([...examples, ...generated].flatMap(tariffsOf));
    // The run below is not a switch (no --send-registration-flows): the filler keeps to what such a run accepts (no agents).
    const valid = (p: Record<string, any>) =>
      tariffsOf(p).every((t) => known.has(t)) && validateAccount(p, { today, importSupplier: supplier, sendRegistrationFlows: false }).ok;
    // Valid accounts of different shapes whose tariffs the sandbox's catalogue knows (the spec
    // example, generated accounts), each filled from the contract while the client's own
    // validation still passes (as in test/unit/schemas/every-documented-field.test.ts).
    const newStyle: any = structuredClone(generated[1]);
    for (const k of ['billing_address1', 'billing_address2', 'billing_address3', 'billing_address4', 'billing_address5', 'billing_postcode'])
      delete newStyle[k];
    newStyle.billing_address = { country: 'GB', postal_code: 'OX5 1AB', street_address: '14 Orchard Lane' };
    const bases: Array<[unknown, string[]]> = [
      [examples[0], []],
      [generated[0], []],
      [newStyle, []],
      [generated[2], ['last_payment_review_date', 'supply_addresses.meter_points.agents']],
    ];
    const payloads = bases.map(([base, skip], i) => {
      const named = { ...(base as object), import_supplier: supplier, external_account_number: `${tag}-F${i}` };
      return filledWhileValid(named, 'EnergyAccount', valid, new Set(skip));
    });
    const covered = new Set(payloads.flatMap((p) => [...pathsOf(p)]));
    // Of the fields a non-switch run may carry: agents to appoint belong to an on-market switch only.
    const allowed = [...pathsOf(everyField('EnergyAccount'))].filter((p) => !p.split('.').includes('agents'));
    expect(covered.size / allowed.length).toBeGreaterThan(0.85);
    for (const p of payloads) {
      for (const ref of collectDocumentPaths(p as EnergyAccount)) {
        const f = path.join(docs, ref.path);
        fs.mkdirSync(path.dirname(f), { recursive: true });
        fs.writeFileSync(f, minimalPdf([ref.path]));
      }
    }
    const file = path.join(dir, 'every-field.jsonl.gz');
    fs.writeFileSync(file, gzipSync(payloads.map((p) => JSON.stringify(p)).join('\n')));

    const runId = uniqueId('run-byo-all-');
    const result = await runToEnd(e, {
      runId,
      supplierCode: supplier,
      source: { kind: 'payloads', path: file, documents: docs },
      selection: { kind: 'all' },
      concurrency: 4,
    });
    expect(result.state).toBe('completed');
    const rows = await attempts(e, runId);
    for (const p of payloads) {
      const ext = p.external_account_number as string;
      const r = rows.get(ext);
      expect({ ext, outcome: r?.outcome, code: r?.error_code, attr: r?.error_attr }).toEqual({ ext, outcome: 'completed', code: null, attr: null });
      expect(await received(e, supplier, ext)).toEqual(p);
    }
  });
});
