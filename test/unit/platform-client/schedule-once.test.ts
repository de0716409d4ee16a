import { describe, expect, it } from 'vitest';
import { PLATFORM_ERROR_CODES, PlatformTransientError } from '../../../clients/platform';
import type { ScheduleResult } from '../../../clients/platform/data-import';
import { afterUnseenAnswer, scheduleOnce } from '../../../clients/platform/schedule';
import type { ScheduleAccountCreation } from '../../../schemas/account';
import type { ImportStatusResponse } from '../../../schemas/import-status';

const SUPPLIER = 'DEMO-SUPPLIER';
const EXT = 'EXT-0001';
const request = {
  payload: { import_supplier: SUPPLIER, external_account_number: EXT },
  task_params: { is_dry_run: false, schedule_window_start: '2030-01-01T00:00:00Z', schedule_window_end: '2030-01-03T00:00:00Z' },
} as ScheduleAccountCreation;

/**
 * How a tenant may answer a second schedule while an import is pending; the reference states none:
 * - `idempotent`: 201 again, no new process (what the sandbox does);
 * - `rejects`: a 400 of a shape the client does not know;
 * - `duplicates`: a second process (and, once both are processed, a second account).
 */
type Rescheduling = 'idempotent' | 'rejects' | 'duplicates';

interface Process {
  status: string;
  createdAt: number;
  kraken_identifier?: string;
}

/** An in-memory tenant: processes per account, the latest shown by the status endpoint. */
function tenant(rescheduling: Rescheduling, opts: { older?: Process[] } = {}) {
  const processes: Process[] = [...(opts.older ?? [])];
  const calls = { schedule: 0, status: 0 };
  let clock = 1_000;
  /** The next schedule call's fate: its answer is lost after (or before) it reaches the tenant. */
  let next: 'answer' | 'lost_after_accepted' | 'lost_before_arrival' = 'answer';
  const live = () => processes.find((p) => p.status === 'PENDING' || p.status === 'IN_PROGRESS');
  const lost = () => new PlatformTransientError(PLATFORM_ERROR_CODES.unavailable, { method: 'POST', path: '/v2/data-import/accounts/', reason: 'network' });
  const api = {
    async scheduleAccountCreation(): Promise<ScheduleResult> {
      calls.schedule++;
      const fate = next;
      next = 'answer';
      if (fate === 'lost_before_arrival') throw lost();
      const account = processes.find((p) => p.status === 'PROCESSED');
      if (account) return { kind: 'already_imported', accountNumber: account.kraken_identifier! };
      if (live() && rescheduling === 'rejects')
        return { kind: 'validation_failed', errors: [{ code: 'import_in_progress', attr: 'non_field_errors', detail: 'An import is in progress.' }] };
      if (!live() || rescheduling === 'duplicates') processes.push({ status: 'PENDING', createdAt: clock++ });
      if (fate === 'lost_after_accepted') throw lost();
      return { kind: 'accepted', body: undefined };
    },
    async getImportStatus(supplier: string, ext: string): Promise<ImportStatusResponse | undefined> {
      calls.status++;
      expect([supplier, ext]).toEqual([SUPPLIER, EXT]);
      const latest = processes[processes.length - 1];
      if (!latest) return undefined;
      const at = new Date(latest.createdAt).toISOString();
      return {
        status: latest.status,
        kraken_identifier: latest.kraken_identifier ?? null,
        created_at: at,
        modified_at: at,
        latest_event: { event: 'EVENT', occurred_at: at },
        latest_error: null,
      };
    },
  };
  return {
    api,
    calls,
    processes,
    loseNext(how: 'lost_after_accepted' | 'lost_before_arrival') {
      next = how;
    },
    /** The platform processes every live import: the first creates the account, later ones find it exists. */
    process() {
      for (const p of processes.filter((x) => x.status === 'PENDING')) {
        const exists = processes.some((x) => x.status === 'PROCESSED');
        Object.assign(p, exists ? { status: 'ERRORED' } : { status: 'PROCESSED', kraken_identifier: 'A-0000AAAA' });
      }
    },
    accountsCreated: () => processes.filter((p) => p.status === 'PROCESSED').length,
  };
}

/** What the activity does: try, and on a transient failure try again as a retry (answer unseen). */
async function scheduleWithRetries(api: ReturnType<typeof tenant>['api'], maxAttempts = 5) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await scheduleOnce(api, { request, answerUnseen: attempt > 1 });
    } catch (e) {
      if (!(e instanceof PlatformTransientError) || attempt === maxAttempts) throw e;
    }
  }
}

describe('afterUnseenAnswer', () => {
  it('schedules when the platform knows no import, or only ones that ended without an account', () => {
    expect(afterUnseenAnswer(undefined)).toEqual({ kind: 'schedule' });
    for (const status of ['ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED'] as const) {
      expect(afterUnseenAnswer({ status, kraken_identifier: null })).toEqual({ kind: 'schedule' });
    }
  });

  it('waits for a live import, and for a status it does not know (the spec types status as a free string)', () => {
    expect(afterUnseenAnswer({ status: 'PENDING' })).toEqual({ kind: 'wait', status: 'PENDING' });
    expect(afterUnseenAnswer({ status: 'IN_PROGRESS' })).toEqual({ kind: 'wait', status: 'IN_PROGRESS' });
    expect(afterUnseenAnswer({ status: 'QUEUED_FOR_REVIEW' })).toEqual({ kind: 'wait', status: 'QUEUED_FOR_REVIEW' });
    expect(afterUnseenAnswer({ status: 'PROCESSED', kraken_identifier: null })).toEqual({ kind: 'wait', status: 'PROCESSED' });
  });

  it('takes an existing account as the outcome', () => {
    expect(afterUnseenAnswer({ status: 'PROCESSED', kraken_identifier: 'A-1F2E3D4C' })).toEqual({ kind: 'imported', accountNumber: 'A-1F2E3D4C' });
  });

  it('an identifier on an import that is not PROCESSED is no account: a live one is waited for, an ended one scheduled again', () => {
    expect(afterUnseenAnswer({ status: 'IN_PROGRESS', kraken_identifier: 'A-1F2E3D4C' })).toEqual({ kind: 'wait', status: 'IN_PROGRESS' });
    expect(afterUnseenAnswer({ status: 'DRY_RUN_SUCCEEDED', kraken_identifier: 'A-1F2E3D4C' })).toEqual({ kind: 'schedule' });
  });
});

describe('scheduleOnce with a payload that names no account', () => {
  it.each([
    ['no external_account_number', { import_supplier: SUPPLIER }],
    ['no import_supplier', { external_account_number: EXT }],
  ])('%s: the status cannot be asked, so the call goes to the platform (which refuses it)', async (_what, payload) => {
    const t = tenant('idempotent');
    t.api.getImportStatus = async () => {
      throw new Error('the status was asked without an account to ask about');
    };
    expect(await scheduleOnce(t.api, { request: { ...request, payload } as ScheduleAccountCreation, answerUnseen: true })).toEqual({
      kind: 'accepted',
      body: undefined,
    });
    expect(t.calls.schedule).toBe(1);
  });
});

describe.each<Rescheduling>(['idempotent', 'rejects', 'duplicates'])(
  'scheduleOnce against a tenant whose re-schedule while pending is "%s"',
  (rescheduling) => {
    it('a first call whose answer is seen sends one schedule and reads no status', async () => {
      const t = tenant(rescheduling);
      expect(await scheduleWithRetries(t.api)).toEqual({ kind: 'accepted', body: undefined });
      expect(t.calls).toEqual({ schedule: 1, status: 0 });
    });

    it('accepted, answer lost: the status shows the pending import, nothing is sent again, one account results', async () => {
      const t = tenant(rescheduling);
      t.loseNext('lost_after_accepted');
      expect(await scheduleWithRetries(t.api)).toEqual({ kind: 'accepted', body: undefined, learnedFromStatus: 'PENDING' });
      expect(t.calls).toEqual({ schedule: 1, status: 1 });
      t.process();
      expect(t.processes).toHaveLength(1);
      expect(t.accountsCreated()).toBe(1);
    });

    it('lost before it arrived: the status shows nothing, the schedule is sent again and accepted', async () => {
      const t = tenant(rescheduling);
      t.loseNext('lost_before_arrival');
      expect(await scheduleWithRetries(t.api)).toEqual({ kind: 'accepted', body: undefined });
      expect(t.calls).toEqual({ schedule: 2, status: 1 });
      expect(t.processes).toHaveLength(1);
    });

    it('lost, and already processed by the time the status is read: the account is the outcome', async () => {
      const t = tenant(rescheduling);
      t.loseNext('lost_after_accepted');
      // The status read happens after processing: drive it through the fake's status call.
      const getStatus = t.api.getImportStatus;
      t.api.getImportStatus = async (s, e) => {
        t.process();
        return getStatus(s, e);
      };
      expect(await scheduleWithRetries(t.api)).toEqual({ kind: 'already_imported', accountNumber: 'A-0000AAAA', learnedFromStatus: 'PROCESSED' });
      expect(t.calls.schedule).toBe(1);
      expect(t.accountsCreated()).toBe(1);
    });

    it('rerun after ERRORED, answer lost after it landed: the status shows our new pending import (not the older one), nothing is sent again', async () => {
      const t = tenant(rescheduling, { older: [{ status: 'ERRORED', createdAt: 1 }] });
      t.loseNext('lost_after_accepted');
      expect(await scheduleWithRetries(t.api)).toMatchObject({ kind: 'accepted', learnedFromStatus: 'PENDING' });
      expect(t.calls).toEqual({ schedule: 1, status: 1 });
      t.process();
      expect(t.processes.map((p) => p.status)).toEqual(['ERRORED', 'PROCESSED']);
    });

    it('rerun after ERRORED, lost before it arrived: the status shows only the older ERRORED process, so it schedules again', async () => {
      const t = tenant(rescheduling, { older: [{ status: 'ERRORED', createdAt: 1 }] });
      t.loseNext('lost_before_arrival');
      expect(await scheduleWithRetries(t.api)).toEqual({ kind: 'accepted', body: undefined });
      expect(t.calls).toEqual({ schedule: 2, status: 1 });
      t.process();
      expect(t.accountsCreated()).toBe(1);
    });

    it('the status read failing is retried like the schedule: nothing is sent while the truth is unknown', async () => {
      const t = tenant(rescheduling);
      t.loseNext('lost_after_accepted');
      let failures = 2;
      const getStatus = t.api.getImportStatus;
      t.api.getImportStatus = async (s, e) => {
        if (failures-- > 0)
          throw new PlatformTransientError(PLATFORM_ERROR_CODES.unavailable, { method: 'GET', path: '/v2/…', status: 503, reason: 'http_status' });
        return getStatus(s, e);
      };
      expect(await scheduleWithRetries(t.api)).toMatchObject({ kind: 'accepted', learnedFromStatus: 'PENDING' });
      expect(t.calls.schedule).toBe(1);
      t.process();
      expect(t.processes).toHaveLength(1);
    });
  },
);

describe('without the status check (the behaviour it replaces)', () => {
  it('a blind retry after a lost answer duplicates the import on a tenant that creates a second process', async () => {
    const t = tenant('duplicates');
    t.loseNext('lost_after_accepted');
    for (let attempt = 1; attempt <= 2; attempt++) await scheduleOnce(t.api, { request, answerUnseen: false }).catch(() => undefined);
    expect(t.processes).toHaveLength(2);
  });
});
