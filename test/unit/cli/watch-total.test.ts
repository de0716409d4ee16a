import { describe, expect, it } from 'vitest';
import { progressLine, stableTotal, totalOf, type RunSnapshot } from '../../../cli/watch';

const ledger = (completed: number, inProgress: number) => ({
  outcomes: { completed, failed: 0, notAttempted: 0, inProgress },
  stagesInProgress: {},
  topErrors: [],
});

/** A snapshot whose progress query answered (enumerated so far, exhausted or not). */
const queried = (done: number, enumerated: number, exhausted: boolean): RunSnapshot =>
  ({
    at: 0,
    workflowStatus: 'RUNNING',
    ledger: ledger(done, 0),
    progress: { state: 'running', exhausted, inFlight: 5, totals: { enumerated, completed: done, failed: 0, notAttempted: 0 } },
  }) as unknown as RunSnapshot;

/** A snapshot whose progress query missed this tick: only the ledger answered. */
const ledgerOnly = (done: number, inProgress: number): RunSnapshot =>
  ({ at: 0, workflowStatus: 'RUNNING', ledger: ledger(done, inProgress) }) as unknown as RunSnapshot;

describe('the watcher’s denominator never moves backwards', () => {
  it('keeps 200 when a tick falls back to the ledger (the demo showed 128/200+, then 137/142+)', () => {
    let shown = stableTotal(undefined, totalOf(queried(128, 200, false)));
    shown = stableTotal(shown, totalOf(ledgerOnly(137, 5)));
    expect(shown).toEqual({ total: 200, final: false });
    expect(progressLine('run-1', ledgerOnly(137, 5), 1, shown)).toContain(' 137/200+ ');
  });

  it('shows the selection total, final, once enumeration is exhausted, and keeps it final', () => {
    let shown = stableTotal(undefined, totalOf(ledgerOnly(0, 50)));
    expect(shown).toEqual({ total: 50, final: false });
    shown = stableTotal(shown, totalOf(queried(10, 200, true)));
    expect(shown).toEqual({ total: 200, final: true });
    shown = stableTotal(shown, totalOf(ledgerOnly(150, 20)));
    expect(shown).toEqual({ total: 200, final: true });
    expect(progressLine('run-1', ledgerOnly(150, 20), 1, shown)).toContain(' 150/200 ');
  });
});
