import { describe, expect, it } from 'vitest';
import { eventBelongsTo, type MatchableAttempt } from '../../../ledger/inbox';

const T = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));
const attempt = (over: Partial<MatchableAttempt> = {}): MatchableAttempt => ({
  runId: 'run-2',
  workflowId: 'account-import/S/EXT-1',
  supplierCode: 'S',
  dryRun: false,
  outcome: null,
  outcomeSource: null,
  scheduledAt: T(10),
  eventWaitActivityId: null,
  ...over,
});
const type = (t: string) => `data_import.import_process.${t}`;

describe('which attempt an inbox event belongs to (eventBelongsTo)', () => {
  it('an event received after the attempt was scheduled belongs to it', () => {
    expect(eventBelongsTo({ eventType: type('complete'), receivedAt: T(12) }, attempt())).toBe(true);
    expect(eventBelongsTo({ eventType: type('complete'), receivedAt: T(10) }, attempt())).toBe(true);
  });

  it('a delivery being routed as it arrives (no receivedAt) belongs to the waiting attempt', () => {
    expect(eventBelongsTo({ eventType: type('error') }, attempt())).toBe(true);
  });

  it("an earlier run's event, received before this attempt was scheduled, does not: it answers an older schedule call", () => {
    expect(eventBelongsTo({ eventType: type('error'), receivedAt: T(9) }, attempt())).toBe(false);
    expect(eventBelongsTo({ eventType: type('complete'), receivedAt: T(0) }, attempt())).toBe(false);
    expect(eventBelongsTo({ eventType: type('cancelled'), receivedAt: new Date(T(10).getTime() - 1) }, attempt())).toBe(false);
  });

  it('an attempt not scheduled yet, or with its outcome recorded, takes no event', () => {
    expect(eventBelongsTo({ eventType: type('complete'), receivedAt: T(12) }, attempt({ scheduledAt: null }))).toBe(false);
    expect(eventBelongsTo({ eventType: type('complete') }, attempt({ outcome: 'failed', outcomeSource: 'poll' }))).toBe(false);
  });

  it('real and dry-run events go to attempts of their own class; cancelled fits either', () => {
    expect(eventBelongsTo({ eventType: type('dry_run_complete') }, attempt())).toBe(false);
    expect(eventBelongsTo({ eventType: type('dry_run_error') }, attempt())).toBe(false);
    expect(eventBelongsTo({ eventType: type('dry_run_complete') }, attempt({ dryRun: true }))).toBe(true);
    expect(eventBelongsTo({ eventType: type('complete') }, attempt({ dryRun: true }))).toBe(false);
    expect(eventBelongsTo({ eventType: type('cancelled') }, attempt({ dryRun: true }))).toBe(true);
    expect(eventBelongsTo({ eventType: type('cancelled') }, attempt())).toBe(true);
  });

  it('events no account workflow waits on belong to no attempt', () => {
    expect(eventBelongsTo({ eventType: type('post_import.completed') }, attempt())).toBe(false);
    expect(eventBelongsTo({ eventType: 'something.else' }, attempt())).toBe(false);
  });
});
