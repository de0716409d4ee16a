import type { PlatformClient } from '../clients/platform';
import type { SupplyLedger } from '../ledger/supply';
import { flowDecision, pointOutcomeOf, type FlowHistory, type PointOutcome, type SupplyRead } from '../domain/supply';

export interface SupplyAccountInput {
  runId: string;
  supplierCode: string;
  externalAccountNumber: string;
  accountNumber: string;
  workflowId: string;
  /** Statuses the operator asked to send again (a refused switch whose cause was cleared). */
  resend: string[];
}

export interface SupplyPlatformActivities {
  followSupply(input: SupplyAccountInput): Promise<SupplyRead>;
}

const NO_HISTORY: FlowHistory = { flowRefused: false };

/**
 * One step of following an account's switch (platform queue): read every point's status first,
 * record it, then send the account's flows only when domain/supply.ts says every point should get
 * one. A retried activity reads again, so a flow whose answer was lost is never sent twice: its
 * points are requested by then. Each refusal is recorded with its detail.
 */
export function supplyActivities(deps: {
  ledger: Pick<SupplyLedger, 'flowHistory' | 'recordStatuses' | 'recordFlowAnswers'>;
  platform: Pick<PlatformClient, 'meterPointStatuses' | 'sendRegistrationFlows'>;
}): SupplyPlatformActivities {
  const { ledger, platform } = deps;
  return {
    async followSupply(input): Promise<SupplyRead> {
      const statuses = await platform.meterPointStatuses(input.supplierCode, input.externalAccountNumber);
      if (statuses === undefined) return { noMeterPoints: true, points: [], sent: 0, refused: 0 };
      const history = await ledger.flowHistory(input);
      const read = statuses.map((s) => ({ ...s, history: history.get(s.mpxn) ?? NO_HISTORY }));
      const decision = flowDecision(read, new Set(input.resend));
      const held = new Set(decision.held);
      const outcomes = new Map<string, PointOutcome | undefined>(
        read.map((p) => [p.mpxn, held.has(p.mpxn) ? 'flow_held' : decision.send ? undefined : pointOutcomeOf(p.status, p.history)]),
      );
      await ledger.recordStatuses(
        input,
        read.map((p) => ({ mpxn: p.mpxn, status: p.status, outcome: outcomes.get(p.mpxn) })),
      );
      let sent = 0;
      let refused = 0;
      if (decision.send) {
        const answers = (await platform.sendRegistrationFlows(input.supplierCode, input.externalAccountNumber)) ?? [];
        await ledger.recordFlowAnswers(input, answers);
        for (const a of answers) {
          if (a.sent) sent++;
          else {
            refused++;
            outcomes.set(a.mpxn, 'flow_refused');
          }
        }
      }
      return {
        noMeterPoints: false,
        points: read.map((p) => {
          const outcome = outcomes.get(p.mpxn);
          return outcome === undefined ? { mpxn: p.mpxn, status: p.status } : { mpxn: p.mpxn, status: p.status, outcome };
        }),
        sent,
        refused,
      };
    },
  };
}
