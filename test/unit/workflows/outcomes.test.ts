import { describe, expect, it } from 'vitest';
import { isTerminalEvent, TERMINAL_EVENT_TYPES } from '../../../domain/event-types';
import { isTerminalStatus, outcomeOf, type Ending } from '../../../domain/outcomes';
import type { AccountOutcome } from '../../../domain/inputs';
import { rowToOutcome } from '../../../ledger/outcome-columns';

const EXT = 'EXT-1';
const event = (type: string, more: { identifier?: string; errorCode?: string } = {}): Ending => ({
  step: 'event',
  event: { eventId: 'ev-1', type: `data_import.import_process.${type}`, ...more },
});
const poll = (status: string, more: { accountNumber?: string; errorCode?: string } = {}): Ending => ({ step: 'poll', status: { status, ...more } });

/**
 * Every way an account's import can end, and the one outcome the ledger records for it (what
 * `run status`, the CSV and the report show). Only a created account is `completed`.
 */
const ENDINGS: Array<[string, Ending, Omit<AccountOutcome, 'externalAccountNumber'>]> = [
  [
    'prepare refused the account',
    { step: 'prepare', result: { ok: false, stage: 'validate', code: 'invalid_phone_number', attr: 'customers.0.mobile', errorCount: 1 } },
    { outcome: 'failed', stage: 'validate', code: 'invalid_phone_number', attr: 'customers.0.mobile', source: 'local' },
  ],
  [
    'a document could not be staged',
    { step: 'documents', result: { ok: false, code: 'document_missing', attr: 'notes.0.document_paths.0.document_path' } },
    { outcome: 'failed', stage: 'documents', code: 'document_missing', attr: 'notes.0.document_paths.0.document_path', source: 'local' },
  ],
  [
    'the supplier is complete',
    { step: 'guard', supplier: 'COMPLETE' },
    { outcome: 'not_attempted', stage: 'guard', code: 'import_supplier_migration_not_ongoing', source: 'local' },
  ],
  [
    'the platform already had the account',
    { step: 'schedule', result: { kind: 'already_imported', accountNumber: 'A-11111111' } },
    { outcome: 'completed', stage: 'schedule', accountNumber: 'A-11111111', source: 'already_imported' },
  ],
  [
    'the tariff pre-flight refused a tariff',
    { step: 'schedule', result: { kind: 'catalogue_failed', code: 'tariff_code_not_found', attr: 'agreements.0.tariff_code', errorCount: 1 } },
    { outcome: 'failed', stage: 'catalogue', code: 'tariff_code_not_found', attr: 'agreements.0.tariff_code', source: 'local' },
  ],
  [
    'the schedule call was refused',
    { step: 'schedule', result: { kind: 'validation_failed', code: 'account_failed_validation', attr: 'customers.0.email', errorCount: 2 } },
    { outcome: 'failed', stage: 'schedule', code: 'account_failed_validation', attr: 'customers.0.email', source: 'platform_response' },
  ],
  ['a complete event', event('complete', { identifier: 'A-22222222' }), { outcome: 'completed', stage: 'await', accountNumber: 'A-22222222', source: 'event' }],
  ['a dry_run_complete event', event('dry_run_complete'), { outcome: 'completed', stage: 'await', source: 'event' }],
  [
    'an error event',
    event('error', { errorCode: 'tariff_code_not_found' }),
    { outcome: 'failed', stage: 'platform', code: 'tariff_code_not_found', source: 'event' },
  ],
  ['an error event without a code', event('error'), { outcome: 'failed', stage: 'platform', code: 'import_error', source: 'event' }],
  [
    'a dry_run_error event',
    event('dry_run_error', { errorCode: 'path_does_not_exist_in_file_store' }),
    { outcome: 'failed', stage: 'platform', code: 'path_does_not_exist_in_file_store', source: 'event' },
  ],
  ['a cancelled event (the schedule window expired)', event('cancelled'), { outcome: 'failed', stage: 'await', code: 'import_cancelled', source: 'event' }],
  [
    'polling read PROCESSED',
    poll('PROCESSED', { accountNumber: 'A-33333333' }),
    { outcome: 'completed', stage: 'await', accountNumber: 'A-33333333', source: 'poll' },
  ],
  ['polling read DRY_RUN_SUCCEEDED', poll('DRY_RUN_SUCCEEDED'), { outcome: 'completed', stage: 'await', source: 'poll' }],
  ['polling read CANCELLED', poll('CANCELLED'), { outcome: 'failed', stage: 'await', code: 'import_cancelled', source: 'poll' }],
  [
    'polling read ERRORED',
    poll('ERRORED', { errorCode: 'tariff_code_not_found' }),
    { outcome: 'failed', stage: 'platform', code: 'tariff_code_not_found', source: 'poll' },
  ],
  ['polling read ERRORED without a code', poll('ERRORED'), { outcome: 'failed', stage: 'platform', code: 'import_error', source: 'poll' }],
  [
    'polling read DRY_RUN_ERRORED',
    poll('DRY_RUN_ERRORED', { errorCode: 'invalid_choice' }),
    { outcome: 'failed', stage: 'platform', code: 'invalid_choice', source: 'poll' },
  ],
  ['no outcome before the polling deadline', { step: 'timeout' }, { outcome: 'failed', stage: 'await', code: 'outcome_timeout', source: 'poll' }],
  [
    'an activity gave up',
    { step: 'activity_failed', stage: 'schedule', code: 'platform_auth_failed' },
    { outcome: 'failed', stage: 'schedule', code: 'platform_auth_failed', source: 'local' },
  ],
  [
    'the run was cancelled before reaching the account',
    { step: 'not_reached', code: 'run_cancelled' },
    { outcome: 'not_attempted', stage: 'guard', code: 'run_cancelled', source: 'local' },
  ],
  [
    'another run created the account',
    { step: 'elsewhere', status: 'COMPLETED', accountNumber: 'A-44444444' },
    { outcome: 'completed', stage: 'done', accountNumber: 'A-44444444', source: 'already_imported' },
  ],
  [
    'another run is still importing the account',
    { step: 'elsewhere', status: 'RUNNING', accountNumber: undefined },
    { outcome: 'not_attempted', stage: 'guard', code: 'account_in_flight_in_another_run', source: 'local' },
  ],
];

describe('the outcome of every ending (outcomeOf)', () => {
  it.each(ENDINGS)('%s', (_what, ending, expected) => {
    expect(outcomeOf(EXT, ending)).toEqual({ externalAccountNumber: EXT, ...expected });
  });

  it('covers every step an ending can have', () => {
    const steps = new Set(ENDINGS.map(([, e]) => e.step));
    expect([...steps].sort()).toEqual(['activity_failed', 'documents', 'elsewhere', 'event', 'guard', 'not_reached', 'poll', 'prepare', 'schedule', 'timeout']);
  });

  it('only endings that say an account exists (or a dry run passed) are completed', () => {
    const completed = ENDINGS.filter(([, e]) => outcomeOf(EXT, e).outcome === 'completed').map(([what]) => what);
    expect(completed).toEqual([
      'the platform already had the account',
      'a complete event',
      'a dry_run_complete event',
      'polling read PROCESSED',
      'polling read DRY_RUN_SUCCEEDED',
      'another run created the account',
    ]);
  });
});

describe('which events and statuses end the wait', () => {
  const types = (names: string[]) => names.map((n) => `data_import.import_process.${n}`);

  it('a real import ends on complete, error and cancelled; never on a dry run event', () => {
    for (const t of types(['complete', 'error', 'cancelled'])) expect(isTerminalEvent(t, false)).toBe(true);
    for (const t of types(['dry_run_complete', 'dry_run_error', 'post_import.completed', 'started'])) expect(isTerminalEvent(t, false)).toBe(false);
  });

  it('a dry run ends on dry_run_complete, dry_run_error and cancelled; never on a real import event', () => {
    for (const t of types(['dry_run_complete', 'dry_run_error', 'cancelled'])) expect(isTerminalEvent(t, true)).toBe(true);
    for (const t of types(['complete', 'error', 'post_import.error'])) expect(isTerminalEvent(t, true)).toBe(false);
  });

  it('the two lists are the ones above', () => {
    expect(TERMINAL_EVENT_TYPES.real).toEqual(types(['complete', 'error', 'cancelled']));
    expect(TERMINAL_EVENT_TYPES.dry).toEqual(types(['dry_run_complete', 'dry_run_error', 'cancelled']));
  });

  it.each([
    ['PROCESSED', true, true],
    ['ERRORED', true, true],
    ['CANCELLED', true, true],
    ['DRY_RUN_ERRORED', true, true],
    ['DRY_RUN_SUCCEEDED', false, true],
    ['PENDING', false, false],
    ['IN_PROGRESS', false, false],
    ['NOT_FOUND', false, false],
    ['SOMETHING_NEW', false, false],
  ])('status %s ends a real import: %s, a dry run: %s', (status, real, dry) => {
    expect(isTerminalStatus({ status }, false)).toBe(real);
    expect(isTerminalStatus({ status }, true)).toBe(dry);
  });
});

describe('an outcome read back from the ledger (rowToOutcome)', () => {
  it('carries every recorded column, and leaves out the empty ones', () => {
    const row = {
      external_account_number: 'EXT-1',
      outcome: 'failed',
      stage: 'platform',
      error_code: 'tariff_code_not_found',
      error_attr: 'agreements.0.tariff_code',
      platform_account_number: null,
      outcome_source: 'event',
    };
    expect(rowToOutcome(row)).toEqual({
      externalAccountNumber: 'EXT-1',
      outcome: 'failed',
      stage: 'platform',
      code: 'tariff_code_not_found',
      attr: 'agreements.0.tariff_code',
      source: 'event',
    });
    expect(
      rowToOutcome({
        external_account_number: 'EXT-2',
        outcome: 'completed',
        stage: 'await',
        error_code: null,
        error_attr: null,
        platform_account_number: 'A-1',
        outcome_source: null,
      }),
    ).toEqual({
      externalAccountNumber: 'EXT-2',
      outcome: 'completed',
      stage: 'await',
      accountNumber: 'A-1',
    });
  });
});
