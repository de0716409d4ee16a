import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ActivityContext } from '../../../activities/deps';
import type { PermitGate } from '../../../activities/platform-permits';
import { platformActivities } from '../../../activities/schedule';
import { PLATFORM_ERROR_CODES, PlatformTransientError, type PlatformClient } from '../../../clients/platform';
import type { PaceSignal } from '../../../domain/platform-pace';
import type { PermitRequest } from '../../../ledger';

const ref = { runId: 'r1', externalAccountNumber: 'EXT-1', supplierCode: 'OCTO', dryRun: false, window: { hours: 24 } };
const tooMany = (retryAfterMs?: number) =>
  new PlatformTransientError(PLATFORM_ERROR_CODES.rateLimited, {
    method: 'POST',
    path: '/v2/data-import/accounts/',
    status: 429,
    reason: 'http_status',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

/** A gate that grants at once (or never) and records what it was told. */
function fakeGate(grant = true) {
  const asked: PermitRequest[] = [];
  const answers: Array<{ holder: string; signal: PaceSignal | undefined; keep: boolean }> = [];
  const gate: PermitGate = {
    acquire: async (request) => {
      asked.push(request);
      return grant ? { full: true, window: 4 } : null;
    },
    answered: async (holder, signal, keep) => {
      answers.push({ holder, signal, keep });
    },
  };
  return { gate, asked, answers };
}

function activities(answers: Array<() => unknown>, gate: PermitGate) {
  let i = 0;
  const platform = {
    scheduleAccountCreation: async () => {
      const next = answers[i++];
      return next();
    },
  } as unknown as PlatformClient;
  const ledger = {
    scheduleInput: async () => ({ supplierStatus: 'ONGOING', request: { import_supplier: 'OCTO', external_account_number: 'EXT-1' } }),
    markScheduled: async () => undefined,
    setStage: async () => undefined,
    replaceErrors: async () => undefined,
  };
  const ctx = { platform, ledger, config: { PLATFORM_TARIFF_PREFLIGHT: false }, logger: pino({ level: 'silent' }), permits: gate };
  return { a: platformActivities(ctx as unknown as ActivityContext), calls: () => i };
}

const env = () =>
  new MockActivityEnvironment({
    attempt: 1,
    workflowExecution: { workflowId: 'account-import/OCTO/EXT-1', runId: 'x' },
    priority: { priorityKey: 1, fairnessKey: 'OCTO', fairnessWeight: 3 },
  });

describe('a schedule call inside the tenant’s window (PLATFORM_PACE=adaptive)', () => {
  it('asks for a permit as its account workflow: its id, and the priority it inherited', async () => {
    const g = fakeGate();
    const { a } = activities([() => ({ kind: 'accepted' })], g.gate);
    expect(await env().run(a.scheduleAccount, ref)).toEqual({ kind: 'accepted' });
    expect(g.asked).toEqual([{ holder: 'account-import/OCTO/EXT-1', priorityKey: 1, fairnessKey: 'OCTO', weight: 3 }]);
    // Accepted: in processing at the tenant, the permit is kept; the window hears it.
    expect(g.answers).toEqual([{ holder: 'account-import/OCTO/EXT-1', signal: { kind: 'accepted', latencyMs: expect.any(Number), full: true }, keep: true }]);
  });

  it('without a priority on its start: the default priority, no fairness key, weight 1', async () => {
    const g = fakeGate();
    const { a } = activities([() => ({ kind: 'accepted' })], g.gate);
    await new MockActivityEnvironment({ workflowExecution: { workflowId: 'w', runId: 'x' } }).run(a.scheduleAccount, ref);
    expect(g.asked).toEqual([{ holder: 'w', priorityKey: 3, fairnessKey: '', weight: 1 }]);
  });

  it('a 429 without Retry-After gives the permit back and waits for another in the same attempt', async () => {
    const g = fakeGate();
    const { a, calls } = activities(
      [
        () => {
          throw tooMany();
        },
        () => ({ kind: 'accepted' }),
      ],
      g.gate,
    );
    expect(await env().run(a.scheduleAccount, ref)).toEqual({ kind: 'accepted' });
    expect(calls()).toBe(2);
    expect(g.asked).toHaveLength(2);
    expect(g.answers.map((x) => [x.signal?.kind, x.keep])).toEqual([
      ['throttled', false],
      ['accepted', true],
    ]);
  });

  it('a 429 with Retry-After gives the permit back and ends the attempt: Temporal comes back when the tenant said', async () => {
    const g = fakeGate();
    const { a, calls } = activities(
      [
        () => {
          throw tooMany(7_000);
        },
      ],
      g.gate,
    );
    const f = await env()
      .run(a.scheduleAccount, ref)
      .catch((e: unknown) => e);
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect((f as ApplicationFailure).nextRetryDelay).toBe(7_000);
    expect(calls()).toBe(1);
    expect(g.answers).toEqual([{ holder: 'account-import/OCTO/EXT-1', signal: { kind: 'throttled', retryAfterMs: 7_000, sentUnder: 4 }, keep: false }]);
  });

  it('a final answer that is not an acceptance frees the permit at once and does not widen the window', async () => {
    const g = fakeGate();
    const { a } = activities([() => ({ kind: 'already_imported', accountNumber: 'A-1' })], g.gate);
    expect(await env().run(a.scheduleAccount, ref)).toEqual({ kind: 'already_imported', accountNumber: 'A-1' });
    expect(g.answers).toEqual([{ holder: 'account-import/OCTO/EXT-1', signal: undefined, keep: false }]);
  });

  it('no permit within the wait: the tenant is not called, the attempt comes back in a second', async () => {
    const g = fakeGate(false);
    const { a, calls } = activities([() => ({ kind: 'accepted' })], g.gate);
    const f = await env()
      .run(a.scheduleAccount, ref)
      .catch((e: unknown) => e);
    expect((f as ApplicationFailure).nextRetryDelay).toBe(1_000);
    expect(calls()).toBe(0);
    expect(g.answers).toEqual([]);
  });
});
