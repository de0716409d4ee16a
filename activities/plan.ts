import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { MigrationRunArgs } from '../domain/inputs';
import { cancelRun, resumeRun, runProgressQuery, type RunProgress } from '../domain/messages';
import { KmKind, KmRunId, KmSupplier } from '../domain/search-attributes';
import { runWorkflowId } from '../domain/workflow-ids';
import { recordSignOff, type SignOff } from '../ledger/plan-sign-offs';
import { createSupplyLedger } from '../ledger/supply';
import type { ActivityContext } from './deps';

/** What the cutover plan workflow asks of the world (workflows/cutover-plan.ts). */
export interface PlanActivities {
  /** Starts a wave's run (idempotent: a retry finds it started). */
  startPlanRun(input: { planId: string; wave: string; run: MigrationRunArgs }): Promise<void>;
  /** The run's progress, and whether its workflow has closed. */
  planRunProgress(input: { runId: string }): Promise<{ closed: boolean; status: string; progress?: RunProgress }>;
  controlPlanRun(input: { runId: string; action: 'resume' | 'cancel'; reason?: string }): Promise<void>;
  recordPlanSignOff(input: Omit<SignOff, 'signedAt'>): Promise<SignOff>;
  /** The wave run's switch numbers for its exit gate (`min_on_supply_rate`, `max_days_to_supply`), as the ledger holds them now. */
  planSupplyGate(input: {
    runId: string;
    maxDaysToSupply: number | null;
  }): Promise<{ readAt: string; points: number; onSupply: number; waiting: number; overMaxDays: number }>;
}

export function planActivities(ctx: Pick<ActivityContext, 'temporal' | 'config' | 'pool'>): PlanActivities {
  const { temporal } = ctx;
  return {
    async startPlanRun({ planId, wave, run }) {
      const client = await temporal();
      try {
        await client.workflow.start('migrationRunWorkflow', {
          workflowId: runWorkflowId(run.runId),
          taskQueue: ctx.config.TEMPORAL_TASK_QUEUE,
          args: [run],
          typedSearchAttributes: [
            { key: KmKind, value: run.dryRun ? 'dry-run' : 'run' },
            { key: KmRunId, value: run.runId },
            { key: KmSupplier, value: run.supplierCode },
          ],
          staticSummary: `Migration run ${run.runId} · ${run.supplierCode} · wave ${wave} of plan ${planId}`,
          staticDetails: `Wave **${wave}** of cutover plan [${planId}](../cutover-plan%2F${encodeURIComponent(planId)}): the plan opens and closes its dispatch at its windows and daily cap.`,
        });
      } catch (e) {
        if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
      }
    },

    async planRunProgress({ runId }) {
      const h = (await temporal()).workflow.getHandle(runWorkflowId(runId));
      const desc = await h.describe();
      const status = desc.status.name;
      if (status === 'RUNNING') return { closed: false, status, progress: await h.query(runProgressQuery) };
      if (status === 'COMPLETED') return { closed: true, status, progress: (await h.result()) as RunProgress };
      return { closed: true, status };
    },

    async controlPlanRun({ runId, action, reason }) {
      const h = (await temporal()).workflow.getHandle(runWorkflowId(runId));
      if ((await h.describe()).status.name !== 'RUNNING') return;
      if (action === 'resume') await h.executeUpdate(resumeRun, { args: [] });
      else await h.executeUpdate(cancelRun, { args: [{ reason }] });
    },

    async recordPlanSignOff(s) {
      return recordSignOff(ctx.pool, s);
    },

    async planSupplyGate({ runId, maxDaysToSupply }) {
      const counts = await createSupplyLedger(ctx.pool).runGateCounts(runId, maxDaysToSupply);
      return { readAt: new Date().toISOString(), ...counts };
    },
  };
}
