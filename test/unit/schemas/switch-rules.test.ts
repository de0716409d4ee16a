import { describe, expect, it } from 'vitest';
import { realisticAccount } from '../../../schemas/fixtures';
import { validateAccount } from '../../../schemas/validate';

/**
 * `agents_supplied_for_non_on_market_switch` (schemas/rules-switch.ts): agents to appoint are for an
 * on-market switch only. A run that does not send registration flows refuses them at their path; a
 * switch passes them on; a caller that does not say which it is leaves the rule to the platform.
 */

const TODAY = '2024-06-20';
const CODE = 'agents_supplied_for_non_on_market_switch';
const ELEC = 'supply_addresses.0.meter_points.0';
const GAS = 'supply_addresses.0.meter_points.1';

function errors(edit: (a: any) => void, sendRegistrationFlows: boolean | undefined): string[] {
  const a: any = realisticAccount();
  edit(a);
  const r = validateAccount(a, { today: TODAY, sendRegistrationFlows });
  return r.ok ? [] : r.errors.map((e) => `${e.code} ${e.attr}`);
}

const withAgents = (a: any) => {
  a.supply_addresses[0].meter_points[0].agents = { dc_contract: { contract_reference: 'DC1' } };
  a.supply_addresses[0].meter_points[1].mam_to_appoint = 'MAM';
};

describe('agents to appoint and the migration type', () => {
  it('the fixture names the points these tests edit', () => {
    const mps = (realisticAccount() as any).supply_addresses[0].meter_points;
    expect(mps.map((m: any) => m.supply_type)).toEqual(['ELECTRICITY', 'GAS']);
  });

  it('not a switch: each agent field fails at its own path', () => {
    expect(errors(withAgents, false)).toEqual([`${CODE} ${ELEC}.agents`, `${CODE} ${GAS}.mam_to_appoint`]);
    expect(errors((a) => Object.assign(a.supply_addresses[0].meter_points[0], { dc_to_appoint: 'DCX', mop_to_appoint: null }), false)).toEqual([
      `${CODE} ${ELEC}.dc_to_appoint`,
    ]);
    expect(errors((a) => (a.supply_addresses[0].meter_points[0].mop_to_appoint = 'MOPX'), false)).toEqual([`${CODE} ${ELEC}.mop_to_appoint`]);
  });

  it('an agents object naming no contract appoints nobody', () => {
    expect(errors((a) => (a.supply_addresses[0].meter_points[0].agents = { dc_contract: null }), false)).toEqual([]);
  });

  it('a switch passes the agents on; a caller that does not say leaves it to the platform', () => {
    expect(errors(withAgents, true)).toEqual([]);
    expect(errors(withAgents, undefined)).toEqual([]);
  });

  it('without agents, either migration type is valid', () => {
    expect(errors(() => {}, false)).toEqual([]);
    expect(errors(() => {}, true)).toEqual([]);
  });
});
