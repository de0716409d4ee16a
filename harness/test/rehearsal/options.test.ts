import { describe, expect, it } from 'vitest';
import { REHEARSAL_SMOKE, rehearsalOptionsSchema } from '../../rehearsal/options';

describe('rehearsal options', () => {
  it('defaults to the issue’s rehearsal: 50,000 accounts, a tenant’s pace, a four-minute outage the poll limit outlasts', () => {
    const o = rehearsalOptionsSchema.parse({});
    expect(o.accounts).toBe(50_000);
    expect(o.platform).toMatchObject({ latencyMs: 150, processingDelayMs: 2_000, processingDelayJitterMs: 18_000 });
    expect(o.outageSeconds).toBe(240);
    expect(o.pollMaxSeconds).toBeGreaterThan(o.outageSeconds + o.eventWaitSeconds);
  });

  it('the CI preset keeps every fault, small', () => {
    const o = rehearsalOptionsSchema.parse(REHEARSAL_SMOKE);
    expect(o.accounts).toBeLessThanOrEqual(200);
    expect(o.outageSeconds).toBeGreaterThan(0);
    expect(o.windowAccounts).toBeGreaterThan(0);
    expect(o.ledgerRows).toBeGreaterThan(0);
    expect(o.pollMaxSeconds).toBeGreaterThan(o.outageSeconds + o.eventWaitSeconds);
  });

  it('refuses a workflow cache the SDK cannot run and a stall that forces no task timeout, naming the field', () => {
    for (const [input, field] of [
      [{ maxCachedWorkflows: 0 }, 'maxCachedWorkflows'],
      [{ maxCachedWorkflows: 1 }, 'maxCachedWorkflows'],
      [{ stallSeconds: 5 }, 'stallSeconds'],
      [{ workers: 1 }, 'workers'],
    ] as const) {
      const r = rehearsalOptionsSchema.safeParse(input);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0].path).toEqual([field]);
    }
    expect(rehearsalOptionsSchema.parse({ stallSeconds: 15, maxCachedWorkflows: 2 })).toMatchObject({ stallSeconds: 15, maxCachedWorkflows: 2 });
  });
});
