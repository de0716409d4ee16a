import { describe, expect, it } from 'vitest';
import { chaosOptionsSchema, planChaos, SMOKE } from '../../chaos/plan';
import { judge, passed, type LedgerOutcome, type PlatformTruth } from '../../chaos/verdict';
import type { GroundTruth } from '../../synthetic/generator';

describe('planChaos', () => {
  it('the same seed gives the same schedule; another seed another one', () => {
    const a = planChaos(chaosOptionsSchema.parse({ seed: 7 }));
    expect(planChaos(chaosOptionsSchema.parse({ seed: 7 }))).toEqual(a);
    expect(planChaos(chaosOptionsSchema.parse({ seed: 8 }))).not.toEqual(a);
  });

  it('the defaults plan 10 worker kills (3 aimed mid-schedule), one server restart, one sandbox restart, 429 bursts, in progress order', () => {
    const plan = planChaos(chaosOptionsSchema.parse({ seed: 123 }));
    const kills = plan.filter((p) => p.action.kind === 'kill_worker');
    expect(kills).toHaveLength(10);
    expect(kills.filter((p) => p.action.kind === 'kill_worker' && p.action.midSchedule)).toHaveLength(3);
    expect(plan.filter((p) => p.action.kind === 'restart_temporal')).toHaveLength(1);
    expect(plan.filter((p) => p.action.kind === 'restart_sandbox')).toHaveLength(1);
    expect(plan.filter((p) => p.action.kind === 'throttle_burst').length).toBeGreaterThan(0);
    const shares = plan.map((p) => p.atShare);
    expect(shares).toEqual([...shares].sort((x, y) => x - y));
    for (const s of shares) {
      expect(s).toBeGreaterThanOrEqual(0.05);
      expect(s).toBeLessThanOrEqual(0.85);
    }
  });

  it('--smoke: 150 accounts, 3 kills, one server restart, faults on', () => {
    const o = chaosOptionsSchema.parse({ ...SMOKE, seed: 1 });
    expect(o).toMatchObject({ accounts: 150, workerKills: 3, serverRestarts: 1 });
    expect(o.faults.error5xxRate).toBeGreaterThan(0);
    expect(planChaos(o).filter((p) => p.action.kind === 'kill_worker')).toHaveLength(3);
  });
});

const truth = (ext: string, expected: GroundTruth['expected']) => ({ external_account_number: ext, expected }) as GroundTruth;
const row = (o: Partial<LedgerOutcome>): LedgerOutcome => ({
  outcome: null,
  stage: null,
  error_code: null,
  error_attr: null,
  platform_account_number: null,
  ...o,
});

describe('judge', () => {
  const T = [
    truth('A', { outcome: 'completed' }),
    truth('B', { outcome: 'failed', stage: 'validate', code: 'invalid_phone_number', attr: 'customers.0.mobile' }),
  ];
  const platform = new Map<string, PlatformTruth>([['A', { created_count: 1, account_number: 'A-1' }]]);

  it('all as expected: passes', () => {
    const ledger = new Map([
      ['A', row({ outcome: 'completed', stage: 'await', platform_account_number: 'A-1' })],
      ['B', row({ outcome: 'failed', stage: 'validate', error_code: 'invalid_phone_number', error_attr: 'customers.0.mobile' })],
    ]);
    const v = judge({ truth: T, ledger, platform, early: 0 });
    expect(v).toEqual({ lost: [], duplicated: [], reopened: [], wrong: [], early: 0 });
    expect(passed(v)).toBe(true);
  });

  it('counts an account without an outcome as lost, a second creation as duplicated, a different code or account number as wrong, early requests as early', () => {
    const ledger = new Map([
      ['A', row({ outcome: 'completed', stage: 'await', platform_account_number: 'A-2' })],
      ['B', row({ outcome: null, stage: 'schedule' })],
    ]);
    const v = judge({ truth: T, ledger, platform: new Map([...platform, ['C', { created_count: 2, account_number: 'A-3' }]]), early: 2 });
    expect(v.lost).toEqual(['B']);
    expect(v.duplicated).toEqual(['C']);
    expect(v.wrong.map((w) => w.account)).toEqual(['A']);
    expect(v.early).toBe(2);
    expect(passed(v)).toBe(false);
    const wrongCode = judge({
      truth: T,
      ledger: new Map([
        ['A', ledger.get('A')!],
        ['B', row({ outcome: 'failed', stage: 'validate', error_code: 'invalid', error_attr: 'customers.0.mobile' })],
      ]),
      platform,
      early: 0,
    });
    expect(wrongCode.wrong.map((w) => w.account)).toEqual(['A', 'B']);
  });

  it('a failed account recorded at another stage, or on another field, is wrong: the right code alone is not enough', () => {
    const completedA = row({ outcome: 'completed', stage: 'await', platform_account_number: 'A-1' });
    const expectedB = { outcome: 'failed', stage: 'validate', error_code: 'invalid_phone_number', error_attr: 'customers.0.mobile' } as const;
    const judgeB = (b: Partial<LedgerOutcome>) =>
      judge({
        truth: T,
        ledger: new Map([
          ['A', completedA],
          ['B', row(b)],
        ]),
        platform,
        early: 0,
      });
    const atSchedule = judgeB({ ...expectedB, stage: 'schedule' });
    expect(atSchedule.wrong).toEqual([
      {
        account: 'B',
        expected: 'outcome=failed stage=validate code=invalid_phone_number attr=customers.0.mobile',
        got: 'outcome=failed stage=schedule code=invalid_phone_number attr=customers.0.mobile',
      },
    ]);
    expect(passed(atSchedule)).toBe(false);
    expect(judgeB({ ...expectedB, error_attr: 'customers.0.landline' }).wrong.map((w) => w.account)).toEqual(['B']);
    expect(judgeB({ ...expectedB, error_attr: null }).wrong.map((w) => w.account)).toEqual(['B']);
    expect(judgeB({ ...expectedB, outcome: 'completed' }).wrong.map((w) => w.account)).toEqual(['B']);
    // An expectation without an attr matches a row without one (null and '' alike), and only that.
    const noAttr = [truth('C', { outcome: 'failed', stage: 'documents', code: 'document_not_found', attr: null })];
    const judgeC = (attr: string | null) =>
      judge({
        truth: noAttr,
        ledger: new Map([['C', row({ outcome: 'failed', stage: 'documents', error_code: 'document_not_found', error_attr: attr })]]),
        platform: new Map(),
        early: 0,
      });
    expect(judgeC(null).wrong).toEqual([]);
    expect(judgeC('').wrong).toEqual([]);
    expect(judgeC('line').wrong.map((w) => w.account)).toEqual(['C']);
  });

  it('a completed account the platform did not create, or created twice, is wrong', () => {
    const ok = row({ outcome: 'completed', stage: 'await', platform_account_number: 'A-1' });
    const only = [T[0]];
    expect(judge({ truth: only, ledger: new Map([['A', ok]]), platform: new Map(), early: 0 }).wrong.map((w) => w.account)).toEqual(['A']);
    const twice = judge({ truth: only, ledger: new Map([['A', ok]]), platform: new Map([['A', { created_count: 2, account_number: 'A-1' }]]), early: 0 });
    expect(twice.wrong.map((w) => w.account)).toEqual(['A']);
    expect(twice.duplicated).toEqual(['A']);
    expect(judge({ truth: only, ledger: new Map([['A', { ...ok, outcome: 'failed' }]]), platform, early: 0 }).wrong.map((w) => w.account)).toEqual(['A']);
  });

  it('says what was expected and what was found, leaving out what is not there', () => {
    const only = [T[0]];
    const [notCreated] = judge({ truth: only, ledger: new Map([['A', row({ outcome: 'failed', stage: 'validate' })]]), platform: new Map(), early: 0 }).wrong;
    expect(notCreated).toEqual({ account: 'A', expected: 'outcome=completed account=(not created)', got: 'outcome=failed stage=validate' });
    const [otherNumber] = judge({
      truth: only,
      ledger: new Map([['A', row({ outcome: 'completed', stage: 'await', error_code: 'x', platform_account_number: 'A-9' })]]),
      platform,
      early: 0,
    }).wrong;
    expect(otherNumber).toEqual({ account: 'A', expected: 'outcome=completed account=A-1', got: 'outcome=completed stage=await code=x account=A-9' });
  });

  it('only a clean account opened twice is reopened: a failed one may be imported again, once is no resend', () => {
    const ledger = new Map([
      ['A', row({ outcome: 'completed', stage: 'await', platform_account_number: 'A-1' })],
      ['B', row({ outcome: 'failed', stage: 'validate', error_code: 'invalid_phone_number', error_attr: 'customers.0.mobile' })],
    ]);
    const twice = { created_count: 0, account_number: null, import_process_count: 2 };
    expect(judge({ truth: T, ledger, platform: new Map([...platform, ['B', twice]]), early: 0 }).reopened).toEqual([]);
    expect(
      judge({ truth: T, ledger, platform: new Map([['A', { created_count: 1, account_number: 'A-1', import_process_count: 1 }]]), early: 0 }).reopened,
    ).toEqual([]);
  });

  it('passes only with nothing lost, duplicated, reopened, wrong or early', () => {
    const clean = { lost: [], duplicated: [], reopened: [], wrong: [], early: 0 };
    expect(passed(clean)).toBe(true);
    expect(passed({ ...clean, lost: ['A'] })).toBe(false);
    expect(passed({ ...clean, duplicated: ['A'] })).toBe(false);
    expect(passed({ ...clean, reopened: ['A'] })).toBe(false);
    expect(passed({ ...clean, wrong: [{ account: 'A', expected: '', got: '' }] })).toBe(false);
    expect(passed({ ...clean, early: 1 })).toBe(false);
  });

  it('a completed account the platform opened a second import for was scheduled again blindly: reopened, and the run fails', () => {
    const ledger = new Map([
      ['A', row({ outcome: 'completed', stage: 'await', platform_account_number: 'A-1' })],
      ['B', row({ outcome: 'failed', stage: 'validate', error_code: 'invalid_phone_number', error_attr: 'customers.0.mobile' })],
    ]);
    const v = judge({ truth: T, ledger, platform: new Map([['A', { created_count: 1, account_number: 'A-1', import_process_count: 2 }]]), early: 0 });
    expect(v).toMatchObject({ reopened: ['A'], duplicated: [], wrong: [] });
    expect(passed(v)).toBe(false);
  });
});
