import { describe, expect, it } from 'vitest';
import { temporal } from '@temporalio/proto';
import { attemptsByActivity } from '../../bench/history-cost';

const E = temporal.api.enums.v1.EventType;
// The history's ids are Longs; numbers stand in for them here (the count reads them as text).
const ev = (x: object) => x as temporal.api.history.v1.IHistoryEvent;
const scheduled = (eventId: number, name: string) =>
  ev({
    eventId,
    eventType: E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
    activityTaskScheduledEventAttributes: { activityType: { name } },
  });
const started = (scheduledEventId: number, attempt: number) =>
  ev({
    eventType: E.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    activityTaskStartedEventAttributes: { scheduledEventId, attempt },
  });

describe('activity attempts in a history (the bench’s attempts per account)', () => {
  it('counts each activity by the attempt number of its started event (retries are not in history), per activity type', () => {
    const events = [
      scheduled(5, 'prepareAccount'),
      started(5, 1),
      scheduled(9, 'scheduleAccount'),
      started(9, 4),
      // The workflow called the schedule activity a second time (after a supplier recheck).
      scheduled(14, 'scheduleAccount'),
      started(14, 2),
      scheduled(20, 'getImportStatus'),
    ];
    expect(Object.fromEntries(attemptsByActivity(events))).toEqual({ prepareAccount: 1, scheduleAccount: 6 });
  });

  it("local activities count by their marker's attempt number; a marker with a backoff is counted by the retry's marker", () => {
    const marker = (data: object) =>
      ev({
        eventType: E.EVENT_TYPE_MARKER_RECORDED,
        markerRecordedEventAttributes: { markerName: 'core_local_activity', details: { data: { payloads: [{ data: Buffer.from(JSON.stringify(data)) }] } } },
      });
    const events = [
      marker({ seq: 1, attempt: 1, activity_type: 'prepareAccount' }),
      marker({ seq: 2, attempt: 3, activity_type: 'recordOutcome', backoff: { seconds: 60 } }),
      marker({ seq: 3, attempt: 4, activity_type: 'recordOutcome' }),
      ev({ eventType: E.EVENT_TYPE_MARKER_RECORDED, markerRecordedEventAttributes: { markerName: 'core_patch' } }),
    ];
    expect(Object.fromEntries(attemptsByActivity(events))).toEqual({ prepareAccount: 1, recordOutcome: 4 });
  });

  it('a started event without an attempt number counts one', () => {
    expect(
      Object.fromEntries(
        attemptsByActivity([
          scheduled(3, 'x'),
          ev({ eventType: E.EVENT_TYPE_ACTIVITY_TASK_STARTED, activityTaskStartedEventAttributes: { scheduledEventId: 3 } }),
        ]),
      ),
    ).toEqual({
      x: 1,
    });
  });
});
