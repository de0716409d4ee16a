import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { requireTool } from '../../support/prometheus';

const dir = path.resolve(__dirname, '../../../deploy/prometheus');
const promtool = (...args: string[]) => spawnSync(requireTool('promtool'), args, { cwd: dir, encoding: 'utf8' });

/** The shipped alert rules (deploy/prometheus/rules.yml), checked and tested by Debian's promtool. */
describe('the alert rules', () => {
  it('promtool check rules accepts them', () => {
    const r = promtool('check', 'rules', 'rules.yml');
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('promtool test rules passes: each alert fires in one case and stays quiet in another', () => {
    const r = promtool('test', 'rules', 'rules.test.yml');
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });

  it('every alert the on-call needs is there, and each has a firing and a quiet case in the tests', () => {
    const rules = parse(fs.readFileSync(path.join(dir, 'rules.yml'), 'utf8')) as { groups: Array<{ rules: Array<{ alert?: string }> }> };
    const alerts = rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
    expect(alerts.sort()).toEqual(
      [
        'KrakenMigrateStopLineTripped',
        'KrakenMigrateWaveProjectedPastWindow',
        'KrakenMigrateGateWaitingForSignOff',
        'KrakenMigrateNoWorkerPolling',
        'KrakenMigratePlatformThrottling',
        'KrakenMigrateOutcomesOnlyByPolling',
        'KrakenMigrateReconciliationDifferences',
        'KrakenMigrateWorkflowTaskScheduleToStartHigh',
        'KrakenMigrateActivityScheduleToStartHigh',
      ].sort(),
    );
    const tests = parse(fs.readFileSync(path.join(dir, 'rules.test.yml'), 'utf8')) as {
      tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    for (const a of alerts) {
      const mine = cases.filter((c) => c.alertname === a);
      expect(
        mine.some((c) => c.exp_alerts.length > 0),
        `${a} fires somewhere`,
      ).toBe(true);
      expect(
        mine.some((c) => c.exp_alerts.length === 0),
        `${a} stays quiet somewhere`,
      ).toBe(true);
    }
  });
});
