import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ActivityContext } from '../../../activities/deps';
import { platformActivities } from '../../../activities/schedule';
import { PLATFORM_ERROR_CODES, PlatformTransientError, type PlatformClient } from '../../../clients/platform';

const ref = { runId: 'r1', externalAccountNumber: 'EXT-1', supplierCode: 'DEMO-SUPPLIER', dryRun: false };

function activities(getImportStatus: PlatformClient['getImportStatus']) {
  const platform = { getImportStatus } as unknown as PlatformClient;
  return platformActivities({ platform, logger: pino({ level: 'silent' }) } as unknown as ActivityContext);
}

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApplicationFailure) return e;
    throw e;
  }
  throw new Error('expected the activity to fail');
}

describe("the platform's Retry-After across activity attempts", () => {
  it('a 429 fails the attempt with Retry-After as the next delay and remembers when the platform may be called again', async () => {
    const env = new MockActivityEnvironment({ attempt: 1 });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const a = activities(async () => {
      throw new PlatformTransientError(PLATFORM_ERROR_CODES.rateLimited, {
        method: 'GET',
        path: '/v2/…',
        status: 429,
        reason: 'http_status',
        retryAfterMs: 5_000,
      });
    });
    const before = Date.now();
    const f = await failure(env.run(a.getImportStatus, ref));
    expect(f).toMatchObject({ type: PLATFORM_ERROR_CODES.rateLimited, nonRetryable: false });
    expect(f.nextRetryDelay).toBe(5_000);
    expect(beats).toHaveLength(1);
    const notBefore = (beats[0] as { notBefore: number }).notBefore;
    expect(notBefore).toBeGreaterThanOrEqual(before + 5_000);
  });

  it('an attempt that starts before then (a retry sooner than asked) sends nothing and asks to come back later', async () => {
    const notBefore = Date.now() + 4_000;
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: { notBefore } });
    let calls = 0;
    const a = activities(async () => {
      calls++;
      return undefined;
    });
    const f = await failure(env.run(a.getImportStatus, ref));
    expect(calls).toBe(0);
    expect(f.nextRetryDelay).toBeGreaterThan(3_000);
    expect(f.nextRetryDelay).toBeLessThanOrEqual(4_000);
  });

  it('once Retry-After has passed the attempt calls the platform', async () => {
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: { notBefore: Date.now() - 1 } });
    let calls = 0;
    const a = activities(async () => {
      calls++;
      return undefined;
    });
    expect(await env.run(a.getImportStatus, ref)).toEqual({ status: 'NOT_FOUND' });
    expect(calls).toBe(1);
  });
});
