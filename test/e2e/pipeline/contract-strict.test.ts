import { describe, expect, it } from 'vitest';
import { createAuth, createPlatformClient, runPlatformCheck } from '../../../clients/platform';
import { accountsFile, useE2E, expectOutcomesMatchGroundTruth, runToEnd, sandbox, seedAccounts, uniqueId } from '../helpers';

const e = useE2E();

// The e2e stack's sandbox runs in strict mode (test/setup/global-stack.ts): every request the
// pipeline sends is checked against the contract, and a violation is answered 4xx and recorded.
describe('the pipeline against the strict sandbox', () => {
  it('a demo-sized run (200 accounts, the demo seed and defect mix) sends zero contract violations; platform check passes', async () => {
    expect((await sandbox(e, 'GET', '/admin/violations')).strict).toBe(true);
    // The stack is shared: other files send deliberate violations (test/e2e/post-import/graphql-read-back.test.ts).
    // What this test judges is what the pipeline and the platform check send from here on.
    const since = new Date().toISOString();

    const cfg = e.config;
    const auth = createAuth(cfg);
    const check = await runPlatformCheck({
      client: createPlatformClient(cfg, { auth }),
      auth,
      authMode: cfg.PLATFORM_AUTH_MODE,
      supplierCode: cfg.IMPORT_SUPPLIER_CODE,
    });
    expect(check.steps.map((s) => `${s.step} ${s.ok ? 'ok' : `failed ${s.status} ${s.reason}`}`)).toEqual([
      'token ok',
      'catalogue ok',
      'validate ok',
      'import_status ok',
    ]);

    const prefix = uniqueId('STRICT');
    const truth = await seedAccounts(e, { accounts: 200, seed: 42, accountNumberPrefix: `${prefix}-` });
    const runId = uniqueId('run-strict-');
    const list = accountsFile(
      e,
      runId,
      truth.map((t) => t.external_account_number),
    );
    const result = await runToEnd(e, { runId, supplierCode: cfg.IMPORT_SUPPLIER_CODE, selection: { kind: 'list', path: list }, concurrency: 50 });
    expect(result.totals.completed + result.totals.failed + result.totals.notAttempted).toBe(200);
    await expectOutcomesMatchGroundTruth(e, runId, cfg.IMPORT_SUPPLIER_CODE, truth);

    // Every account whose tariff the catalogue could not confirm is counted "not pre-checked".
    const notes = await e.pool.query(
      `select count(distinct external_account_number)::int as n from migrate.account_errors where run_id = $1 and stage = 'preflight'`,
      [runId],
    );
    const byCode = await e.pool.query(
      `select error_code, stage, count(*)::int as n from migrate.account_attempts where run_id = $1 and outcome <> 'completed' group by 1, 2 order by 1`,
      [runId],
    );
    process.stderr.write(`[strict run] ${JSON.stringify(result.totals)} not pre-checked ${notes.rows[0].n}; failures ${JSON.stringify(byCode.rows)}\n`);

    const violations = await sandbox(e, 'GET', '/admin/violations');
    expect((violations.violations as { at: string }[]).filter((v) => v.at >= since)).toEqual([]);
  });
});
