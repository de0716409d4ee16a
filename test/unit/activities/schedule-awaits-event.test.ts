import { CompleteAsyncError } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ActivityContext } from '../../../activities/deps';
import { platformActivities } from '../../../activities/schedule';
import type { PlatformClient } from '../../../clients/platform';

/**
 * The schedule activity after an accepted answer, when the workflow asks it to wait for the event
 * (domain/event-wait.ts): it writes its wait with the stage and reads the inbox, and completes
 * asynchronously; an event already in the inbox is its answer; a wait written by an earlier attempt
 * makes it answer at once.
 */

const COMPLETE = 'data_import.import_process.complete';
const input = { runId: 'r1', externalAccountNumber: 'EXT-1', supplierCode: 'OCTO', dryRun: false, window: { hours: 24 } };

function activities(o: { waits: boolean; kept?: { eventId: string; eventType: string; identifier: string } }) {
  const calls: string[] = [];
  const platform = { scheduleAccountCreation: async () => ({ kind: 'accepted' }) } as unknown as PlatformClient;
  const ledger = {
    scheduleInput: async () => ({ supplierStatus: 'ONGOING', request: { import_supplier: 'OCTO', external_account_number: 'EXT-1' } }),
    markScheduled: async () => undefined,
    setStage: async (_ref: unknown, stage: string) => void calls.push(`stage ${stage}`),
    awaitEvent: async (_ref: unknown, w: { activityId: string; seconds: number }) => {
      calls.push(`wait ${w.activityId} ${w.seconds}s`);
      return { waits: o.waits, ...(o.kept ? { kept: { ...o.kept, externalIdentifier: 'EXT-1', errorCode: null } } : {}) };
    },
  };
  const ctx = { platform, ledger, config: { PLATFORM_TARIFF_PREFLIGHT: false }, logger: pino({ level: 'silent' }) };
  return { a: platformActivities(ctx as unknown as ActivityContext), calls };
}

const env = () => new MockActivityEnvironment({ attempt: 1, activityId: '5', workflowExecution: { workflowId: 'account-import/OCTO/EXT-1', runId: 'x' } });

describe('the schedule activity waiting for its event', () => {
  it('writes its wait (and reads the inbox) in one ledger call, and completes asynchronously', async () => {
    const { a, calls } = activities({ waits: true });
    await expect(env().run(a.scheduleAccount, { ...input, awaitEventSeconds: 60 })).rejects.toBeInstanceOf(CompleteAsyncError);
    expect(calls).toEqual(['wait 5 60s']);
  });

  it('answers with an event that beat its wait into the inbox', async () => {
    const { a } = activities({ waits: true, kept: { eventId: 'e1', eventType: COMPLETE, identifier: 'A-1' } });
    expect(await env().run(a.scheduleAccount, { ...input, awaitEventSeconds: 60 })).toEqual({
      kind: 'accepted',
      event: { eventId: 'e1', type: COMPLETE, identifier: 'A-1' },
    });
  });

  it('answers at once after an earlier attempt waited', async () => {
    const { a } = activities({ waits: false });
    expect(await env().run(a.scheduleAccount, { ...input, awaitEventSeconds: 60 })).toEqual({ kind: 'accepted', waited: true });
  });

  it('without a wait asked (an older workflow): sets the stage and answers accepted', async () => {
    const { a, calls } = activities({ waits: true });
    expect(await env().run(a.scheduleAccount, input)).toEqual({ kind: 'accepted' });
    expect(calls).toEqual(['stage await']);
  });
});
