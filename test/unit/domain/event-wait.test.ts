import { describe, expect, it } from 'vitest';
import { acceptedAnswer, eventAfterSchedule, eventWaitLeft, WAIT_RAN_OUT, waitingActivityFor } from '../../../domain/event-wait';

const COMPLETE = 'data_import.import_process.complete';
const DRY_COMPLETE = 'data_import.import_process.dry_run_complete';
const done = { eventId: 'e1', type: COMPLETE, identifier: 'A-1' };

describe('the schedule activity after an accepted answer', () => {
  it('waits when its wait is written and no event is in the inbox', () => {
    expect(acceptedAnswer({ waits: true, dryRun: false })).toBeUndefined();
  });
  it('answers with the event that beat its wait into the inbox', () => {
    expect(acceptedAnswer({ waits: true, kept: done, dryRun: false })).toEqual({ kind: 'accepted', event: done });
  });
  it('waits on when the inbox holds an event that does not end this kind of import', () => {
    expect(acceptedAnswer({ waits: true, kept: { eventId: 'e2', type: DRY_COMPLETE }, dryRun: false })).toBeUndefined();
  });
  it('answers at once, never a second wait, when an earlier attempt already waited', () => {
    expect(acceptedAnswer({ waits: false, kept: done, dryRun: false })).toEqual({ kind: 'accepted', waited: true });
    expect(acceptedAnswer({ waits: false, dryRun: false })).toEqual(WAIT_RAN_OUT);
  });
});

describe('the router delivering an account event', () => {
  it('completes the waiting activity with an event that ends its import', () => {
    expect(waitingActivityFor(COMPLETE, { dryRun: false, eventWaitActivityId: '7' })).toBe('7');
    expect(waitingActivityFor(DRY_COMPLETE, { dryRun: true, eventWaitActivityId: '7' })).toBe('7');
  });
  it('signals when no activity waits, or the event does not end the import', () => {
    expect(waitingActivityFor(COMPLETE, { dryRun: false, eventWaitActivityId: null })).toBeUndefined();
    expect(waitingActivityFor(COMPLETE, { dryRun: true, eventWaitActivityId: '7' })).toBeUndefined();
  });
});

describe('the workflow after the schedule', () => {
  it("takes the activity's event, else a signal's", () => {
    expect(eventAfterSchedule({ kind: 'accepted', event: done }, undefined, false)).toEqual(done);
    const signalled = { eventId: 'e3', type: COMPLETE, identifier: 'A-2' };
    expect(eventAfterSchedule({ kind: 'accepted' }, signalled, false)).toEqual(signalled);
    expect(eventAfterSchedule({ kind: 'accepted' }, undefined, false)).toBeUndefined();
  });
  it('ignores an event that does not end this kind of import', () => {
    expect(eventAfterSchedule({ kind: 'accepted', event: done }, undefined, true)).toBeUndefined();
  });
  it("waits on its own timer unless the activity's wait ran out", () => {
    expect(eventWaitLeft({ kind: 'accepted' })).toBe(true);
    expect(eventWaitLeft({ kind: 'accepted', event: done })).toBe(true);
    expect(eventWaitLeft(WAIT_RAN_OUT)).toBe(false);
  });
});
