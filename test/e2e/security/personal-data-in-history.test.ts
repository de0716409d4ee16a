import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalConnectionOptions } from '../../../clients/temporal';
import { normalisePhone } from '../../../source/normalise';
import { accountsFile, connectE2E, runToEnd, seedAccounts, uniqueId, type E2E } from '../helpers';

let e: E2E;
beforeAll(async () => {
  e = await connectE2E();
});
afterAll(async () => {
  await e?.close();
});

/** Every personal value of the run's customers, in the forms the pipeline could have written them. */
async function personalValues(accounts: string[]): Promise<string[]> {
  const r = await e.pool.query(
    `select c.first_name, c.surname, c.email, c.mobile_phone, c.home_phone, c.date_of_birth
       from legacy.contacts c join legacy.accounts a on a.account_id = c.account_id
      where a.account_number = any($1)`,
    [accounts],
  );
  const values = new Set<string>();
  for (const row of r.rows) {
    for (const v of [row.first_name, row.surname, row.email]) if (v && v.trim().length >= 4) values.add(v.trim());
    for (const p of [row.mobile_phone, row.home_phone]) {
      const n = p ? normalisePhone(p) : undefined;
      if (n) values.add(n);
    }
    if (row.date_of_birth) {
      const [d, m, y] = String(row.date_of_birth).trim().split('/');
      if (y) values.add(`${y}-${m}-${d}`);
    }
  }
  return [...values];
}

describe('personal data and secrets stay out of Temporal and the logs', () => {
  it('no customer name, phone, e-mail or birth date, and no platform key, in raw history or logs; the codec decodes it', async () => {
    const truth = await seedAccounts(e, { accounts: 12, seed: 99, defectRate: 0.3, accountNumberPrefix: `${uniqueId('PII')}-` });
    const accounts = truth.map((t) => t.external_account_number);
    const runId = uniqueId('run-pii-');
    await runToEnd(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, accounts) } });

    const secrets = [e.env.PLATFORM_ORGANIZATION_SECRET_KEY, e.env.PLATFORM_API_KEY, e.env.EVENTS_WEBHOOK_SECRET, e.env.CODEC_KEYS.split(':')[1]];
    const personal = await personalValues(accounts);
    expect(personal.length).toBeGreaterThan(30);

    // Raw history as the Temporal database holds it: a client with no codec.
    const raw = new Client({ connection: await Connection.connect(temporalConnectionOptions(e.config)), namespace: e.config.TEMPORAL_NAMESPACE });
    const histories: string[] = [];
    const protos: temporal.api.history.v1.IHistory[] = [];
    for await (const wf of raw.workflow.list({ query: `KmRunId = '${runId}'` })) {
      const h = await raw.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      protos.push(h);
      // The bytes as stored: any plaintext in a payload would show up in this string.
      histories.push(Buffer.from(temporal.api.history.v1.History.encode(h).finish()).toString('utf8'));
    }
    await raw.connection.close();
    expect(histories.length).toBe(accounts.length + 1);
    const history = histories.join('\n');
    // Failure messages are encrypted too ("Encoded failure" is what the server stores).
    expect(history).toContain('Encoded failure');

    const logs = fs
      .readdirSync(path.join(e.config.DATA_DIR, 'logs'))
      .map((f) => fs.readFileSync(path.join(e.config.DATA_DIR, 'logs', f), 'utf8'))
      .join('\n');
    for (const value of [...personal, ...secrets]) {
      expect(history.includes(value), `history contains ${value.slice(0, 3)}…`).toBe(false);
      expect(logs.includes(value), `logs contain ${value.slice(0, 3)}…`).toBe(false);
    }

    // The workflow input is ciphertext in the database and decodes through the codec server.
    const accountHistory = protos.find((h) => h.events![0].workflowExecutionStartedEventAttributes!.workflowType!.name === 'accountImportWorkflow')!;
    const started = accountHistory.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    const b64 = (v: Uint8Array | null | undefined) => Buffer.from(v ?? []).toString('base64');
    const payload = { metadata: Object.fromEntries(Object.entries(started.metadata ?? {}).map(([k, v]) => [k, b64(v)])), data: b64(started.data) };
    expect(Buffer.from(payload.data, 'base64').toString('latin1')).not.toContain(accounts[0]);
    const res = await fetch(`http://127.0.0.1:${e.config.CODEC_PORT}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payloads: [payload] }) });
    expect(res.status).toBe(200);
    const decoded = (await res.json()) as { payloads: { data: string }[] };
    expect(Buffer.from(decoded.payloads[0].data, 'base64').toString('utf8')).toMatch(/"externalAccountNumber":"PII/);
  });
});
