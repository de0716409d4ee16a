import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { temporalConnectionOptions } from '../../../clients/temporal';
import { contains, personalValues } from './personal-values';
import { accountsFile, useE2E, runToEnd, seedAccounts, startOwnWorker, startRun, uniqueId } from '../helpers';

const e = useE2E();

/** Every payload in a history, wherever it sits (inputs, results, details, memos, headers), search attributes aside. */
function payloadsOf(node: unknown, out: Array<{ metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }> = []) {
  if (!node || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const x of node) payloadsOf(x, out);
    return out;
  }
  const o = node as Record<string, unknown>;
  if ('metadata' in o && 'data' in o && o.metadata && typeof o.metadata === 'object') out.push(o);
  // Search attributes are plain by design (identifiers only, indexed by the server): they stay in the
  // text that is searched below.
  for (const [k, v] of Object.entries(o)) if (k !== 'searchAttributes' && v && typeof v === 'object' && !(v instanceof Uint8Array)) payloadsOf(v, out);
  return out;
}

describe('personal data and secrets stay out of Temporal and the logs', () => {
  it('no customer name, phone, e-mail or birth date, and no platform key, in raw history or logs; the codec decodes it', async () => {
    // Two runs: one on the stack's worker at the production log level (info), one on a worker at debug.
    const truth = await seedAccounts(e, { accounts: 12, seed: 99, defectRate: 0.3, accountNumberPrefix: `${uniqueId('PII')}-` });
    const accounts = truth.map((t) => t.external_account_number);
    const runId = uniqueId('run-pii-');
    await runToEnd(e, { runId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, runId, accounts) } });
    const debugTruth = await seedAccounts(e, { accounts: 8, seed: 98, defectRate: 0.3, accountNumberPrefix: `${uniqueId('PIIDBG')}-` });
    const debugAccounts = debugTruth.map((t) => t.external_account_number);
    const debugQueue = uniqueId('pii-debug-q-');
    const debugWorker = await startOwnWorker(e, { taskQueue: debugQueue, name: 'pii-debug-worker', env: { LOG_LEVEL: 'debug' } });
    const debugRunId = uniqueId('run-pii-debug-');
    try {
      await (
        await startRun(
          e,
          { runId: debugRunId, supplierCode: e.config.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: accountsFile(e, debugRunId, debugAccounts) } },
          { taskQueue: debugQueue },
        )
      ).result();
    } finally {
      debugWorker.kill('SIGTERM');
    }

    const secrets = [e.env.PLATFORM_ORGANIZATION_SECRET_KEY, e.env.PLATFORM_API_KEY, e.env.EVENTS_WEBHOOK_SECRET, e.env.CODEC_KEYS.split(':')[1]];
    const personal = await personalValues(e.pool, [...accounts, ...debugAccounts]);
    expect(personal.length).toBeGreaterThan(100);
    expect(personal.some((v) => v.length < 4)).toBe(true);

    // Raw history as the Temporal database holds it: a client with no codec.
    const raw = new Client({ connection: await Connection.connect(temporalConnectionOptions(e.config)), namespace: e.config.TEMPORAL_NAMESPACE });
    const histories: string[] = [];
    const protos: temporal.api.history.v1.IHistory[] = [];
    let encrypted = 0;
    for await (const wf of raw.workflow.list({ query: `KmRunId = '${runId}' OR KmRunId = '${debugRunId}'` })) {
      const h = await raw.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      protos.push(h);
      // Encrypted payloads are blanked (random bytes would match short values by chance); every
      // payload left in plain text (SDK marker metadata and the like) stays in the searched text.
      const blanked = temporal.api.history.v1.History.decode(temporal.api.history.v1.History.encode(h).finish());
      for (const p of payloadsOf(blanked)) {
        if (Buffer.from(p.metadata?.encoding ?? []).toString('utf8') === 'binary/encrypted') {
          p.data = new Uint8Array();
          encrypted++;
        }
      }
      histories.push(Buffer.from(temporal.api.history.v1.History.encode(blanked).finish()).toString('utf8'));
    }
    await raw.connection.close();
    expect(histories.length).toBe(accounts.length + debugAccounts.length + 2);
    // Inputs, results and signals went through the codec: many encrypted payloads, at least one per workflow input.
    expect(encrypted).toBeGreaterThan(histories.length * 3);
    const history = histories.join('\n');
    // Failure messages are encrypted too ("Encoded failure" is what the server stores).
    expect(history).toContain('Encoded failure');

    const logs = fs
      .readdirSync(path.join(e.config.DATA_DIR, 'logs'))
      .map((f) => fs.readFileSync(path.join(e.config.DATA_DIR, 'logs', f), 'utf8'))
      .join('\n');
    expect(logs).toContain('"level":20'); // the debug worker's debug lines are in the scan
    for (const value of [...personal, ...secrets]) {
      expect(contains(history, value), `history contains ${value.slice(0, 2)}…`).toBe(false);
      expect(contains(logs, value), `logs contain ${value.slice(0, 2)}…`).toBe(false);
    }

    // The workflow input is ciphertext in the database and decodes through the codec server.
    const accountHistory = protos.find((h) => h.events![0].workflowExecutionStartedEventAttributes!.workflowType!.name === 'accountImportWorkflow')!;
    const started = accountHistory.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    const b64 = (v: Uint8Array | null | undefined) => Buffer.from(v ?? []).toString('base64');
    const payload = { metadata: Object.fromEntries(Object.entries(started.metadata ?? {}).map(([k, v]) => [k, b64(v)])), data: b64(started.data) };
    expect(Buffer.from(payload.data, 'base64').toString('latin1')).not.toContain(accounts[0]);
    const res = await fetch(`http://127.0.0.1:${e.config.CODEC_PORT}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [payload] }),
    });
    expect(res.status).toBe(200);
    const decoded = (await res.json()) as { payloads: { data: string }[] };
    expect(Buffer.from(decoded.payloads[0].data, 'base64').toString('utf8')).toMatch(/"externalAccountNumber":"PII/);
  });
});
