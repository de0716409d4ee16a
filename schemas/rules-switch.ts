import { type Emit, type Obj, type RuleContext, given, isObj, meterPoints } from './rule-kit';

/**
 * The agent fields the contract's validator names ("no agents are provided when not sending
 * registration flows"): the deprecated `dc_to_appoint` / `mop_to_appoint` (electricity),
 * `mam_to_appoint` (gas), and `agents`, the electricity contracts that replace the first two (they
 * appoint the same agents; `agents_and_mpids_to_appoint_provided` forbids both at once).
 */
const AGENT_FIELDS = ['dc_to_appoint', 'mop_to_appoint', 'mam_to_appoint'] as const;

/** An `agents` object naming at least one contract (an all-null object appoints nobody). */
const appointsAgents = (v: unknown): boolean => isObj(v) && Object.values(v).some(given);

/**
 * `agents_supplied_for_non_on_market_switch`: agents are appointed only on an on-market switch,
 * when the run sends registration flows (`run start --send-registration-flows`, a plan wave's
 * `send_registration_flows`). Checked only when the caller says which migration it is.
 */
export function switchRules(account: Obj, ctx: RuleContext, emit: Emit): void {
  if (ctx.sendRegistrationFlows !== false) return;
  for (const { mp, path } of meterPoints(account)) {
    for (const key of AGENT_FIELDS) {
      if (given(mp[key]))
        emit('agents_supplied_for_non_on_market_switch', [...path, key], `${key} appoints an agent: only on a switch (--send-registration-flows).`);
    }
    if (appointsAgents(mp.agents))
      emit('agents_supplied_for_non_on_market_switch', [...path, 'agents'], 'agents are appointed only on a switch (--send-registration-flows).');
  }
}
