import { describe, expect, it } from 'vitest';
import { runExpiredWindowsPhase } from '../../../harness/rehearsal/expired-windows';
import { attempts, useE2E, groundTruth, sandbox, seedAccounts, uniqueId } from '../helpers';

const e = useE2E();

describe('rehearsal: windows that expire and outcomes that never come', () => {
  it('held accounts end import_cancelled (by event, by poll when the event is dropped) or outcome_timeout; the rerun creates each cancelled one once; the never-answered are not created', async () => {
    const prefix = uniqueId('XW');
    // Clean accounts (no planted defect): each would complete if the platform answered.
    const truth = await seedAccounts(e, { accounts: 6, seed: 532, defectRate: 0, accountNumberPrefix: `${prefix}-` });
    expect(truth.every((t) => t.expected.outcome === 'completed')).toBe(true);
    const [c1, c2, d1, d2, n1, n2] = truth.map((t) => t.external_account_number);
    const lines: string[] = [];

    const summary = await runExpiredWindowsPhase(
      {
        stack: { env: e.env, config: e.config, info: { sandboxUrl: e.sandboxUrl, dataDir: e.config.DATA_DIR } },
        client: e.client,
        pool: e.pool,
        log: (l) => {
          lines.push(l);
          process.stderr.write(`[expired-windows] ${l}\n`);
        },
      },
      {
        accountNumbers: { cancelled: [c1, c2], cancelledEventDropped: [d1, d2], neverAnswered: [n1, n2] },
        windowSeconds: 20,
        pollMaxSeconds: 30,
        concurrency: 6,
        runIdPrefix: prefix.toLowerCase(),
      },
    );
    const { cancelled, neverAnswered, rerun } = summary.runIds;

    // What the operator sees in the ledger: each held account failed with its code.
    const first = new Map([...(await attempts(e, cancelled!)), ...(await attempts(e, neverAnswered!))]);
    const ending = (a: string) => {
      const r = first.get(a)!;
      return `${r.outcome} ${r.error_code} ${r.outcome_source}`;
    };
    expect([c1, c2, d1, d2, n1, n2].map(ending)).toEqual([
      'failed import_cancelled event',
      'failed import_cancelled event',
      'failed import_cancelled poll',
      'failed import_cancelled poll',
      'failed outcome_timeout poll',
      'failed outcome_timeout poll',
    ]);

    // The platform never delivered the dropped accounts' cancelled events; once the holds were lifted,
    // the rerun's complete events were delivered.
    const events = (await sandbox(e, 'GET', '/admin/events?limit=5000')).events.filter((ev: any) => [d1, d2].includes(ev.external_identifier));
    expect(events.map((ev: any) => `${ev.type} ${ev.status}`).sort()).toEqual([
      'data_import.import_process.cancelled dropped',
      'data_import.import_process.cancelled dropped',
      'data_import.import_process.complete delivered',
      'data_import.import_process.complete delivered',
    ]);

    // The rerun took exactly the cancelled accounts and completed them.
    const again = await attempts(e, rerun!);
    expect([...again.keys()].sort()).toEqual([c1, c2, d1, d2].sort());
    expect([...again.values()].every((r) => r.outcome === 'completed')).toBe(true);

    // The platform's ground truth: each cancelled account created once; the never-answered not at all.
    const platform = await groundTruth(e, e.config.IMPORT_SUPPLIER_CODE);
    const state = (a: string) => `${platform.get(a)?.created_count} ${platform.get(a)?.status}`;
    expect([c1, c2, d1, d2].map(state)).toEqual(['1 PROCESSED', '1 PROCESSED', '1 PROCESSED', '1 PROCESSED']);
    expect([n1, n2].map(state)).toEqual(['0 PENDING', '0 PENDING']);

    expect(summary).toMatchObject({
      cancelledByEvent: 2,
      cancelledByPoll: 2,
      outcomeTimeout: 2,
      rerunCreated: 4,
      rerunDuplicated: 0,
      neverAnsweredCreated: 0,
      wrong: 0,
      passed: true,
    });
    expect(lines.at(-1)).toBe(summary.line);
  });

  it('refuses options that would make the phase meaningless, naming the field', async () => {
    const ctx = {
      stack: { env: e.env, config: e.config, info: { sandboxUrl: e.sandboxUrl, dataDir: e.config.DATA_DIR } },
      client: e.client,
      pool: e.pool,
      log: () => undefined,
    };
    const base = { windowSeconds: 20, pollMaxSeconds: 30, concurrency: 2, runIdPrefix: 'xw-bad' };
    await expect(
      runExpiredWindowsPhase(ctx, { ...base, accountNumbers: { cancelled: ['A'], cancelledEventDropped: [], neverAnswered: ['A'] } }),
    ).rejects.toThrow(/accountNumbers: A is listed twice/);
    await expect(
      runExpiredWindowsPhase(ctx, { ...base, pollMaxSeconds: 86_400, accountNumbers: { cancelled: ['A'], cancelledEventDropped: [], neverAnswered: [] } }),
    ).rejects.toThrow(/pollMaxSeconds/);
  });
});
