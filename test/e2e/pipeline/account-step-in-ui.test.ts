import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { accountWorkflowId } from '../../../domain/workflow-ids';
import { supplierStatusSignal } from '../../../domain/messages';
import { accountDetails, SUMMARIES } from '../../../workflows/account-details';
import { findChromium, launchChromium } from '../../../harness/browser/chromium';
import { accountsFile, useE2E, sandbox, seedAccounts, setSupplierEverywhere, startRun, uniqueId, until } from '../helpers';

const e = useE2E();

describe("an account's current step in the Temporal UI", () => {
  it('the account page shows the step it is in and what it waits for; at the end, the recorded outcome', async (ctx) => {
    const CHROMIUM = await findChromium();
    if (!CHROMIUM) {
      if (process.env.CI) throw new Error('no Chromium found (CHROMIUM_PATH, chromium/google-chrome on PATH): the CI script must apt-get install -y chromium');
      process.stderr.write('[e2e] account-step browser test SKIPPED: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n');
      ctx.skip('no Chromium found; skipped outside CI');
      return;
    }
    const supplier = uniqueId('STEP-');
    await setSupplierEverywhere(e, supplier, 'ONGOING');
    const [truth] = await seedAccounts(e, { accounts: 1, seed: 11, defectRate: 0, accountNumberPrefix: `${supplier}-` });
    const account = truth.external_account_number;
    const runId = uniqueId('run-step-');
    // The platform refuses the supplier when the account schedules: the account parks at step 3.
    await sandbox(e, 'PUT', `/admin/suppliers/${supplier}`, { status: 'PAUSED' });
    const run = await startRun(e, {
      runId,
      supplierCode: supplier,
      selection: { kind: 'list', path: accountsFile(e, runId, [account]) },
      concurrency: 1,
      timings: { eventWaitSeconds: 10, pollMaxSeconds: 3600, supplierRecheckSeconds: 600 },
    });
    const workflowId = accountWorkflowId(supplier, account, false, runId);
    const handle = e.client.workflow.getHandle(workflowId);
    const ref = { supplierCode: supplier, externalAccountNumber: account, runId };
    const waiting = accountDetails({ step: 'guard', recheckSeconds: 600 }, ref);
    await until('the account to wait on its supplier', async () => {
      const meta = await handle.query(workflowMetadataQuery).catch(() => undefined);
      return meta?.currentDetails === waiting;
    });

    const browser = await launchChromium(CHROMIUM);
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`${e.config.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(e.config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`);
      const shot = path.join(os.tmpdir(), `account-step-${runId}.png`);
      // The timeline: the summaries of the step-4 schedule call and of the step-3 timer it waits on.
      await page.getByText(SUMMARIES.supplierRecheck).first().waitFor({ timeout: 60_000 });
      expect(await page.locator('body').innerText()).toContain(SUMMARIES.schedule);
      // The current details: on the page's User Metadata tab, the markdown rendered in a frame of its own.
      await page.getByText('User Metadata', { exact: true }).first().click();
      const shown = async () =>
        (
          await Promise.all(
            page.frames().map((f) =>
              f
                .locator('body')
                .innerText()
                .catch(() => ''),
            ),
          )
        )
          .join('\n')
          // Its markdown renderer curls apostrophes: compared straight.
          .replace(/\u2019/g, "'");
      await until('the account page to show its current step', async () => (await shown()).includes('Step 3 of 6: waiting for the supplier'), 60_000).catch(
        async (err: unknown) => {
          await page.screenshot({ path: shot, fullPage: true });
          process.stderr.write(`[e2e] account page (screenshot ${shot}):\n${await shown()}\n`);
          throw err;
        },
      );
      const text = await shown();
      expect(text).toContain(`Supplier ${supplier} is paused: waits for the operator's supplier resume, rechecking every 600 s.`);
      expect(text).toContain(`Account ${account} of supplier ${supplier}, run ${runId}.`);
      await page.screenshot({ path: shot, fullPage: true });
    } finally {
      await browser.close();
    }

    // The operator resumes (the run wakes its parked accounts): the account goes on and its page ends with the recorded outcome.
    await setSupplierEverywhere(e, supplier, 'ONGOING');
    await run.signal(supplierStatusSignal, { status: 'ONGOING' });
    const outcome = (await handle.result()) as { outcome: string; accountNumber?: string };
    expect(outcome.outcome).toBe('completed');
    const done = await handle.query(workflowMetadataQuery);
    expect(done.currentDetails).toBe(accountDetails({ step: 'record', outcome: outcome as never }, ref));
    expect(done.currentDetails).toContain('**Step 6 of 6: recorded: completed**');
    await run.result();
  });
});
