import type { ActivityOptions } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { describe, expect, it } from 'vitest';
import { PLATFORM_CALL, scheduleAwaitingEvent } from '../../../workflows/activity-options';
import { EVENT_WAIT_SWEEP_SECONDS } from '../../../domain/event-wait';

const seconds = (d: ActivityOptions['startToCloseTimeout']) => msToNumber(d ?? 0) / 1000;

describe('the schedule call that waits for the event (workflows/activity-options.ts)', () => {
  it("lasts the platform call, the event wait and the sweep's lag: the events process ends the wait before Temporal times it out", () => {
    for (const wait of [1, 60, 600]) {
      expect(seconds(scheduleAwaitingEvent(wait).startToCloseTimeout)).toBe(seconds(PLATFORM_CALL.startToCloseTimeout) + wait + EVENT_WAIT_SWEEP_SECONDS);
    }
  });
  it('keeps the platform call’s retry policy and its day-long schedule-to-close', () => {
    expect(scheduleAwaitingEvent(60)).toMatchObject({ retry: PLATFORM_CALL.retry, scheduleToCloseTimeout: PLATFORM_CALL.scheduleToCloseTimeout });
  });
});
