import { describe, expect, it } from 'vitest';
import type { AccountOutcome } from '../../../domain/inputs';
import {
  STOP_LINE_DEFAULTS,
  evaluateStopLine,
  initialStopLine,
  observeOutcome,
  resetStopLine,
  sideOf,
  type StopLineState,
  type StopLineThresholds,
} from '../../../domain/stop-line';

const ok = (ext: string): AccountOutcome => ({ externalAccountNumber: ext, outcome: 'completed', stage: 'await', source: 'event' });
const platform = (ext: string, code = 'tariff_code_not_found', source: AccountOutcome['source'] = 'event'): AccountOutcome => ({
  externalAccountNumber: ext,
  outcome: 'failed',
  stage: 'platform',
  code,
  source,
});
const data = (ext: string): AccountOutcome => ({ externalAccountNumber: ext, outcome: 'failed', stage: 'validate', code: 'invalid_phone', source: 'local' });

const T: StopLineThresholds = { maxFailureRate: 0.5, overLast: 4, maxSameCode: 3 };
const fold = (os: AccountOutcome[], t = T, s: StopLineState = initialStopLine()) => os.reduce((acc, o) => observeOutcome(acc, o, t), s);

describe('which side an outcome counts on', () => {
  it('created accounts are successes, with or without read-back differences', () => {
    expect(sideOf(ok('A'))).toBe('success');
    expect(sideOf({ ...ok('A'), outcome: 'completed_with_differences' })).toBe('success');
  });
  it('accounts never attempted say nothing about the platform', () => {
    expect(sideOf({ externalAccountNumber: 'A', outcome: 'not_attempted', stage: 'guard', code: 'run_cancelled', source: 'local' })).toBe('none');
  });
  it('a local check that failed is a data error; a platform code recorded locally is still the platform', () => {
    expect(sideOf(data('A'))).toBe('data');
    expect(sideOf({ externalAccountNumber: 'A', outcome: 'failed', stage: 'documents', source: 'local' })).toBe('data');
    expect(sideOf(platform('A', 'platform_rejected', 'local'))).toBe('platform');
    expect(sideOf(platform('A', 'tariff_code_not_found', 'platform_response'))).toBe('platform');
    expect(sideOf(platform('A', 'outcome_timeout', 'poll'))).toBe('platform');
    expect(sideOf({ externalAccountNumber: 'A', outcome: 'failed', stage: 'platform' })).toBe('platform');
  });
});

describe('stop the line: max_same_code', () => {
  it('trips at exactly max_same_code platform failures with one code in a row, naming the code, the count and the accounts', () => {
    const two = fold([platform('A'), platform('B')]);
    expect(evaluateStopLine(two, T)).toBeUndefined();
    const three = observeOutcome(two, platform('C'), T);
    expect(evaluateStopLine(three, T)).toEqual({
      rule: 'max_same_code',
      code: 'tariff_code_not_found',
      count: 3,
      samples: [
        { externalAccountNumber: 'A', code: 'tariff_code_not_found' },
        { externalAccountNumber: 'B', code: 'tariff_code_not_found' },
        { externalAccountNumber: 'C', code: 'tariff_code_not_found' },
      ],
      message: 'stop the line: 3 platform-side failures in a row with code tariff_code_not_found (max_same_code 3)',
    });
  });
  it('a success or another code breaks the run; data errors neither break it nor count in it', () => {
    const t = { ...T, overLast: 100 };
    expect(evaluateStopLine(fold([platform('A'), platform('B'), ok('C'), platform('D'), platform('E')], t), t)).toBeUndefined();
    const other = fold([platform('A'), platform('B'), platform('C', 'other_code'), platform('D'), platform('E')], t);
    expect(other.streak).toEqual({ code: 'tariff_code_not_found', count: 2 });
    expect(evaluateStopLine(other, t)).toBeUndefined();
    const withData = fold([platform('A'), data('X'), data('Y'), platform('B'), data('Z'), platform('C')], t);
    expect(evaluateStopLine(withData, t)?.rule).toBe('max_same_code');
    expect(withData.dataErrors).toBe(3);
    expect(withData.platformFailures).toBe(3);
  });
  it('data errors alone never trip it', () => {
    const s = fold(Array.from({ length: 50 }, (_, i) => data(`D${i}`)));
    expect(evaluateStopLine(s, T)).toBeUndefined();
    expect(s).toEqual({ ...initialStopLine(), dataErrors: 50 });
  });
  it('the samples are the newest few of the code that tripped it', () => {
    const t = { ...T, maxSameCode: 7, overLast: 100 };
    const s = fold([platform('X', 'other'), ...Array.from({ length: 7 }, (_, i) => platform(`A${i}`))], t);
    expect(s.samples.map((x) => x.externalAccountNumber)).toEqual(['A2', 'A3', 'A4', 'A5', 'A6']);
    const trip = evaluateStopLine(s, t);
    expect(trip?.samples.map((x) => x.externalAccountNumber)).toEqual(['A2', 'A3', 'A4', 'A5', 'A6']);
    const mixed = fold([platform('A0'), platform('A1'), platform('X', 'other'), platform('B0'), platform('B1'), platform('B2')], T);
    expect(evaluateStopLine(mixed, T)?.samples.map((x) => x.externalAccountNumber)).toEqual(['B0', 'B1', 'B2']);
  });
  it('an outcome without a code counts as import_error', () => {
    const s = observeOutcome(initialStopLine(), { externalAccountNumber: 'A', outcome: 'failed', stage: 'platform', source: 'event' }, T);
    expect(s.streak).toEqual({ code: 'import_error', count: 1 });
  });
});

describe('stop the line: max_failure_rate over_last', () => {
  const t = { maxFailureRate: 0.5, overLast: 4, maxSameCode: 100 };
  it('waits for a full window of platform-side outcomes', () => {
    const s = fold([platform('A', 'a'), platform('B', 'b'), platform('C', 'c')], t);
    expect(evaluateStopLine(s, t)).toBeUndefined();
  });
  it('exactly max_failure_rate does not trip; more does, naming the most frequent code', () => {
    const half = fold([platform('A', 'a'), ok('B'), platform('C', 'b'), ok('D')], t);
    expect(evaluateStopLine(half, t)).toBeUndefined();
    const more = observeOutcome(half, platform('E', 'b'), t);
    expect(more.recent).toEqual(['', 'b', '', 'b']);
    expect(evaluateStopLine(more, t)).toBeUndefined();
    const trip = evaluateStopLine(observeOutcome(more, platform('F', 'a'), t), t);
    expect(trip).toEqual({
      rule: 'max_failure_rate',
      code: 'b',
      count: 3,
      over: 4,
      samples: [
        { externalAccountNumber: 'A', code: 'a' },
        { externalAccountNumber: 'C', code: 'b' },
        { externalAccountNumber: 'E', code: 'b' },
        { externalAccountNumber: 'F', code: 'a' },
      ],
      message: 'stop the line: 3 of the last 4 platform-side outcomes failed (75%, max_failure_rate 50%); most often b',
    });
  });
  it('the most frequent code need not be the first seen', () => {
    const s = fold([ok('Z'), platform('A', 'x'), platform('B', 'y'), platform('C', 'y')], t);
    expect(evaluateStopLine(s, t)?.code).toBe('y');
  });
  it('ties between codes go to the one seen first', () => {
    const s = fold([platform('A', 'x'), platform('B', 'y'), platform('C', 'y'), platform('D', 'x')], t);
    expect(evaluateStopLine(s, t)?.code).toBe('x');
  });
  it('the window slides: old failures age out', () => {
    const s = fold([platform('A', 'a'), platform('B', 'b'), platform('C', 'c'), ok('D'), ok('E'), ok('F')], t);
    expect(s.recent).toEqual(['c', '', '', '']);
    expect(evaluateStopLine(s, t)).toBeUndefined();
  });
  it('same code in a row is reported first when both rules trip', () => {
    const both = { maxFailureRate: 0.5, overLast: 3, maxSameCode: 3 };
    expect(evaluateStopLine(fold([platform('A'), platform('B'), platform('C')], both), both)?.rule).toBe('max_same_code');
  });
});

describe('after run resume', () => {
  it('the window and the streak start again; the counts stay', () => {
    const s = fold([data('X'), platform('A'), platform('B'), platform('C')]);
    const tripped = { ...s, tripped: evaluateStopLine(s, T) };
    const r = resetStopLine(tripped);
    expect(r).toEqual({ ...initialStopLine(), dataErrors: 1, platformFailures: 3 });
    expect(evaluateStopLine(r, T)).toBeUndefined();
  });
  it('observing leaves the state it was given as it was', () => {
    const s = initialStopLine();
    observeOutcome(s, platform('A'), T);
    observeOutcome(s, data('B'), T);
    expect(s).toEqual(initialStopLine());
  });
  it('a fresh state has seen nothing; an account never attempted changes nothing; a success ends the streak', () => {
    expect(initialStopLine()).toEqual({ recent: [], streak: { code: '', count: 0 }, samples: [], dataErrors: 0, platformFailures: 0 });
    const s = fold([platform('A')]);
    expect(observeOutcome(s, { externalAccountNumber: 'N', outcome: 'not_attempted', stage: 'guard', code: 'run_cancelled', source: 'event' }, T)).toBe(s);
    expect(observeOutcome(s, ok('B'), T).streak).toEqual({ code: '', count: 0 });
  });
  it('the defaults are the ones the docs state', () => {
    expect(STOP_LINE_DEFAULTS).toEqual({ maxFailureRate: 0.5, overLast: 100, maxSameCode: 20 });
  });
});
