import { describe, expect, it } from 'vitest';
import { accountDetails, accountSwitchDetails, SUMMARIES, type AccountStep } from '../../../workflows/account-details';

const ref = { supplierCode: 'OCTO', externalAccountNumber: 'EXT-000123', runId: 'run-7' };
const window = { hours: 24 };
const lines = (s: AccountStep) => accountDetails(s, ref).split('\n\n');
const tail = 'Account `EXT-000123` of supplier `OCTO`, run `run-7`.';

describe("an account's current step in the Temporal UI", () => {
  it('names each of the six steps, in order', () => {
    expect(lines({ step: 'prepare' })).toEqual(['**Step 1 of 6: preparing: source, transform, validate, documents staged**', tail]);
    expect(lines({ step: 'documents' })).toEqual(['**Step 2 of 6: staging documents in the platform bucket**', tail]);
    expect(lines({ step: 'guard', recheckSeconds: 300 })[0]).toBe('**Step 3 of 6: waiting for the supplier**');
    expect(lines({ step: 'schedule' })[0]).toBe('**Step 4 of 6: scheduling with the data-import API**');
    expect(lines({ step: 'await', window, phase: 'event', waitSeconds: 60 })[0]).toBe("**Step 5 of 6: waiting for the platform's import**");
    expect(lines({ step: 'reconcile' })).toEqual(['**Step 5 of 6: imported: reading the account back**', tail]);
    expect(lines({ step: 'post-import' })[0]).toBe('**Step 5 of 6: imported: carrying changes over**');
    expect(lines({ step: 'record' })).toEqual(['**Step 6 of 6: recording the outcome in the ledger**', tail]);
  });

  it('says what it waits for: the supplier, the window, the event, the import status', () => {
    expect(lines({ step: 'guard', recheckSeconds: 300 })[1]).toBe(
      "Supplier `OCTO` is paused: waits for the operator's `supplier resume`, rechecking every 300 s.",
    );
    expect(lines({ step: 'schedule' })[1]).toBe('Tariff pre-flight, then the schedule call for supplier `OCTO`.');
    expect(lines({ step: 'await', window, phase: 'event', waitSeconds: 60 })[1]).toBe(
      "Scheduled for the schedule window of 24 h from scheduling; waits for the platform's event (up to 60 s, then polls).",
    );
    expect(lines({ step: 'await', window: { start: '2026-12-01T00:00:00Z', hours: 48 }, phase: 'inbox' })[1]).toBe(
      'Scheduled for the schedule window from 2026-12-01T00:00:00Z (48 h); no event signalled: checking the events inbox.',
    );
    expect(
      lines({
        step: 'await',
        window: { start: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z', hours: 24 },
        phase: 'poll',
        lastStatus: 'IN_PROGRESS',
        polls: 1,
        nextPollSeconds: 5,
      })[1],
    ).toBe(
      "Scheduled for the schedule window 2026-12-01T00:00:00Z to 2026-12-02T00:00:00Z; import status `IN_PROGRESS` after 1 poll, next in 5 s (or at the platform's event).",
    );
    expect(lines({ step: 'await', window, phase: 'poll', lastStatus: 'QUEUED', polls: 3, nextPollSeconds: 20 })[1]).toContain('after 3 polls, next in 20 s');
  });

  it('ends with the recorded outcome, its code and the platform account number', () => {
    expect(
      lines({
        step: 'record',
        outcome: { externalAccountNumber: 'EXT-000123', outcome: 'completed', stage: 'record', accountNumber: 'A-1B2C3D', source: 'event' } as never,
      }),
    ).toEqual(['**Step 6 of 6: recorded: completed**', 'platform account `A-1B2C3D`', tail]);
    expect(
      lines({ step: 'record', outcome: { externalAccountNumber: 'EXT-000123', outcome: 'failed', stage: 'schedule', code: 'invalid_tariff' } as never }).slice(
        0,
        2,
      ),
    ).toEqual(['**Step 6 of 6: recorded: failed**', 'code `invalid_tariff`']);
  });

  it('keeps backticks in identifiers from breaking the markdown', () => {
    expect(accountDetails({ step: 'prepare' }, { ...ref, externalAccountNumber: 'a`b' })).toContain("Account `a'b`");
  });

  it('timeline summaries are fixed single lines naming their step', () => {
    for (const s of Object.values(SUMMARIES)) {
      expect(s).toMatch(/^Step [1-6]: /);
      expect(s).not.toContain('\n');
    }
  });

  it('on a switch, ends naming the meter points its follow waits for and those it has left, or the follow before its first read', () => {
    const outcome = { externalAccountNumber: 'EXT-000123', outcome: 'completed', stage: 'record', accountNumber: 'A-1B2C3D', source: 'event' } as never;
    const follow = 'Followed to supply by `supply/OCTO/EXT-000123`: its page shows each status as it moves; `run supply run-7` lists them.';
    const record = ['**Step 6 of 6: recorded: completed**', 'platform account `A-1B2C3D`', tail];
    expect(accountSwitchDetails(outcome, ref, 'supply/OCTO/EXT-000123', undefined).split('\n\n')).toEqual([
      ...record,
      '**Switch: registration flows under way**',
      follow,
    ]);
    const points = [
      { mpxn: '1012345678901', status: 'REGISTRATION_REQUESTED' },
      { mpxn: '9876543210', status: 'PRE_REGISTRATION', outcome: 'flow_refused' as const },
      { mpxn: '1098765432109', status: 'PRE_REGISTRATION' },
    ];
    expect(accountSwitchDetails(outcome, ref, 'supply/OCTO/EXT-000123', points).split('\n\n')).toEqual([
      ...record,
      '**Switch: waiting for 2 of 3 meter points to reach a final state**',
      '- `1012345678901`: REGISTRATION_REQUESTED\n- `1098765432109`: PRE_REGISTRATION',
      'Left: `9876543210` PRE_REGISTRATION (flow_refused).',
      follow,
    ]);
    // Every point left at the first read: none waited for, none listed as waiting.
    expect(accountSwitchDetails(outcome, ref, 'supply/OCTO/EXT-000123', [points[1]]).split('\n\n')).toEqual([
      ...record,
      '**Switch: waiting for 0 of 1 meter points to reach a final state**',
      'Left: `9876543210` PRE_REGISTRATION (flow_refused).',
      follow,
    ]);
  });
});
