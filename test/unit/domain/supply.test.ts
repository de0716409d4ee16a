import { describe, expect, it } from 'vitest';
import {
  accountSupplyOf,
  endedRefused,
  finalClassOf,
  flowDecision,
  followEnded,
  isFinalStatus,
  METER_POINT_STATUSES,
  nextPollSeconds,
  pointOutcomeOf,
  RESENDABLE_STATUSES,
  shouldSendFlow,
  supplyFunnel,
} from '../../../domain/supply';

/**
 * The switch's decisions (domain/supply.ts), each answer a migration team would check: which
 * statuses end a point's switch and how, when a flow may be sent, when an account is on supply,
 * and the back-off between reads.
 */

const NEVER = { flowRefused: false };
const REFUSED = { flowRefused: true };
const none = new Set<string>();

describe('final or not', () => {
  it('names every final status by its class, the erroneous-transfer and loss states as such', () => {
    const finals = Object.fromEntries(METER_POINT_STATUSES.filter(isFinalStatus).map((s) => [s, finalClassOf(s)]));
    expect(finals).toEqual({
      UNABLE_TO_REGISTER: 'unable_to_register',
      NOMINATION_REJECTED: 'rejected',
      OFFER_REJECTED: 'rejected',
      REGISTRATION_REJECTED: 'rejected',
      REGISTRATION_WITHDRAWN: 'withdrawn',
      REGISTRATION_OBJECTED: 'objected',
      ON_SUPPLY: 'on_supply',
      OPENING_READ_DISPUTED: 'on_supply',
      MTD_DISPUTED: 'on_supply',
      METER_EXCHANGE_REQUESTED: 'on_supply',
      LOST_ERRONEOUS_GAIN: 'erroneous_transfer',
      ET_COMPLETED: 'erroneous_transfer',
      LOST: 'lost',
      DISCONNECTED: 'lost',
      ERRONEOUS_LOSS: 'erroneous_transfer',
      'DE-ENERGISED': 'on_supply',
    });
  });

  it('a point on its way is not final: requested, accepted, an objection received, a loss or transfer pending, pre-registration', () => {
    for (const s of [
      'PRE_REGISTRATION',
      'REGISTRATION_REQUESTED',
      'REGISTRATION_ACCEPTED',
      'OBJECTION_RECEIVED',
      'LOSS_PENDING',
      'ET_REQUESTED',
      'ET_CANCELLED',
    ]) {
      expect([s, isFinalStatus(s), finalClassOf(s)]).toEqual([s, false, undefined]);
    }
  });

  it('a status the contract does not list is not final (and not read off the object prototype)', () => {
    expect(finalClassOf('SOMETHING_NEW')).toBeUndefined();
    expect(finalClassOf('toString')).toBeUndefined();
  });

  it('only objected, rejected, unable to register and withdrawn ended refused', () => {
    expect(METER_POINT_STATUSES.filter(endedRefused)).toEqual([
      'UNABLE_TO_REGISTER',
      'NOMINATION_REJECTED',
      'OFFER_REJECTED',
      'REGISTRATION_REJECTED',
      'REGISTRATION_WITHDRAWN',
      'REGISTRATION_OBJECTED',
    ]);
    expect(endedRefused('NOT_A_STATUS')).toBe(false);
  });

  it('where the tool leaves a point: its class, a refused flow left for the operator, or nowhere while it follows it', () => {
    expect(pointOutcomeOf('ON_SUPPLY', NEVER)).toBe('on_supply');
    expect(pointOutcomeOf('REGISTRATION_OBJECTED', REFUSED)).toBe('objected');
    expect(pointOutcomeOf('PRE_REGISTRATION', REFUSED)).toBe('flow_refused');
    expect(pointOutcomeOf('PRE_REGISTRATION', NEVER)).toBeUndefined();
    expect(pointOutcomeOf('REGISTRATION_REQUESTED', REFUSED)).toBeUndefined();
  });
});

describe('send or not', () => {
  it('a point at pre-registration gets its first flow; one requested, accepted or on supply never a second', () => {
    expect(shouldSendFlow('PRE_REGISTRATION', NEVER, none)).toBe(true);
    for (const s of ['REGISTRATION_REQUESTED', 'REGISTRATION_ACCEPTED', 'OBJECTION_RECEIVED', 'ON_SUPPLY', 'LOST']) {
      expect([s, shouldSendFlow(s, NEVER, none)]).toEqual([s, false]);
      expect([s, shouldSendFlow(s, NEVER, new Set([s]))]).toEqual([s, false]);
    }
  });

  it('a refused flow is not retried blindly: only when the operator asks', () => {
    expect(shouldSendFlow('PRE_REGISTRATION', REFUSED, none)).toBe(false);
    expect(shouldSendFlow('PRE_REGISTRATION', REFUSED, new Set(['REGISTRATION_FLOW_ERROR']))).toBe(true);
    expect(shouldSendFlow('PRE_REGISTRATION', REFUSED, new Set(['PRE_REGISTRATION']))).toBe(true);
    expect(shouldSendFlow('PRE_REGISTRATION', REFUSED, new Set(['REGISTRATION_OBJECTED']))).toBe(false);
  });

  it('a switch that ended refused is sent again only for the statuses the operator names', () => {
    expect(shouldSendFlow('REGISTRATION_OBJECTED', NEVER, none)).toBe(false);
    expect(shouldSendFlow('REGISTRATION_OBJECTED', NEVER, new Set(['REGISTRATION_OBJECTED']))).toBe(true);
    expect(shouldSendFlow('REGISTRATION_OBJECTED', NEVER, new Set(['REGISTRATION_REJECTED']))).toBe(false);
  });

  it("the account's flows go only when every point should get one; the others wanting one are held", () => {
    const p = (mpxn: string, status: string, history = NEVER) => ({ mpxn, status, history });
    expect(flowDecision([p('A', 'PRE_REGISTRATION'), p('B', 'PRE_REGISTRATION')], none)).toEqual({ send: true, held: [] });
    expect(flowDecision([p('A', 'PRE_REGISTRATION'), p('B', 'REGISTRATION_REQUESTED')], none)).toEqual({ send: false, held: ['A'] });
    expect(flowDecision([p('A', 'ON_SUPPLY'), p('B', 'REGISTRATION_OBJECTED')], new Set(['REGISTRATION_OBJECTED']))).toEqual({ send: false, held: ['B'] });
    expect(flowDecision([p('A', 'REGISTRATION_OBJECTED'), p('B', 'PRE_REGISTRATION', REFUSED)], new Set(['REGISTRATION_OBJECTED']))).toEqual({
      send: false,
      held: ['A'],
    });
    expect(flowDecision([p('A', 'ON_SUPPLY')], none)).toEqual({ send: false, held: [] });
    expect(flowDecision([], none)).toEqual({ send: false, held: [] });
  });
});

describe('the account and the follow', () => {
  it('no account is on supply while one of its points is not', () => {
    expect(accountSupplyOf(['ON_SUPPLY', 'ON_SUPPLY'])).toBe('on_supply');
    expect(accountSupplyOf(['ON_SUPPLY', 'DE-ENERGISED'])).toBe('on_supply');
    expect(accountSupplyOf(['ON_SUPPLY', 'REGISTRATION_ACCEPTED'])).toBe('waiting');
    expect(accountSupplyOf(['ON_SUPPLY', 'REGISTRATION_OBJECTED'])).toBe('ended');
    expect(accountSupplyOf(['ON_SUPPLY', 'PRE_REGISTRATION'])).toBe('waiting');
    expect(accountSupplyOf([])).toBe('waiting');
  });

  it('the follow ends when every point has an outcome, or the tenant holds none', () => {
    expect(followEnded({ noMeterPoints: true, points: [], sent: 0, refused: 0 })).toBe(true);
    expect(followEnded({ noMeterPoints: false, points: [{ mpxn: 'A', status: 'ON_SUPPLY', outcome: 'on_supply' }], sent: 0, refused: 0 })).toBe(true);
    expect(
      followEnded({
        noMeterPoints: false,
        points: [
          { mpxn: 'A', status: 'ON_SUPPLY', outcome: 'on_supply' },
          { mpxn: 'B', status: 'REGISTRATION_ACCEPTED' },
        ],
        sent: 0,
        refused: 0,
      }),
    ).toBe(false);
  });

  it('the back-off doubles from the minimum to the maximum while nothing changes, and starts again on a change', () => {
    const b = { min: 10, max: 35 };
    expect(nextPollSeconds(undefined, false, b)).toBe(10);
    expect(nextPollSeconds(10, false, b)).toBe(20);
    expect(nextPollSeconds(20, false, b)).toBe(35);
    expect(nextPollSeconds(35, false, b)).toBe(35);
    expect(nextPollSeconds(35, true, b)).toBe(10);
    expect(nextPollSeconds(2, false, b)).toBe(10);
  });
});

describe('the funnel', () => {
  it('counts points by status and outcome, and accounts on supply only when all their points are', () => {
    const f = supplyFunnel([
      { account: 'A', status: 'ON_SUPPLY', outcome: 'on_supply' },
      { account: 'A', status: 'ON_SUPPLY', outcome: 'on_supply' },
      { account: 'B', status: 'ON_SUPPLY', outcome: 'on_supply' },
      { account: 'B', status: 'REGISTRATION_OBJECTED', outcome: 'objected' },
      { account: 'C', status: 'REGISTRATION_ACCEPTED', outcome: null },
      { account: 'C', status: 'ON_SUPPLY', outcome: 'on_supply' },
      { account: 'D', status: 'PRE_REGISTRATION', outcome: 'flow_refused' },
      { account: 'E', status: 'ON_SUPPLY', outcome: 'on_supply' },
    ]);
    expect(f).toEqual({
      points: 8,
      byStatus: { ON_SUPPLY: 5, REGISTRATION_OBJECTED: 1, REGISTRATION_ACCEPTED: 1, PRE_REGISTRATION: 1 },
      byOutcome: { on_supply: 5, objected: 1, waiting: 1, flow_refused: 1 },
      accounts: { on_supply: 2, ended: 2, waiting: 1 },
    });
  });

  it('the operator may send again only refused switches and refused flows', () => {
    expect(RESENDABLE_STATUSES).toEqual([...METER_POINT_STATUSES.filter(endedRefused), 'REGISTRATION_FLOW_ERROR']);
    expect(RESENDABLE_STATUSES).not.toContain('ON_SUPPLY');
  });
});
