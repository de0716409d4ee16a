import { createActivityContext, type ActivityDeps } from './deps';
import { guardActivities } from './guard';
import { outcomeActivities } from './outcome';
import { postImportMainActivities, postImportPlatformActivities, type PostImportMainActivities, type PostImportPlatformActivities } from './post-import';
import { prepareActivities } from './prepare';
import { runActivities } from './run';
import { planActivities, type PlanActivities } from './plan';
import { censusActivities, type CensusActivities } from './census';
import { platformActivities } from './schedule';
import { stageDocumentsActivities } from './stage-documents';
import { supplyActivities, type SupplyPlatformActivities } from './supply';
import { createSupplyLedger } from '../ledger/supply';
import type { MainActivities, PlatformActivities } from './types';

export type { AccountActivities, MainActivities, PlatformActivities, RunActivities } from './types';
export type { ActivityDeps } from './deps';
export type { PlanActivities } from './plan';
export type { CensusActivities } from './census';

/** Activities built from their dependencies, one file per stage; nothing reads globals. */
export function createActivities(deps: ActivityDeps): {
  main: MainActivities & PostImportMainActivities & PlanActivities & CensusActivities;
  platform: PlatformActivities & PostImportPlatformActivities & SupplyPlatformActivities;
  /** Closes the payload sources the activities opened (a `.jsonl.gz` source's decompressed copy goes with it). */
  close(): Promise<void>;
} {
  const ctx = createActivityContext(deps);
  return {
    main: {
      ...prepareActivities(ctx),
      ...stageDocumentsActivities(ctx),
      ...guardActivities(ctx),
      ...outcomeActivities(ctx),
      ...runActivities(ctx),
      // After creation: reconciliation and changes carried over (post-import.ts).
      ...postImportMainActivities(ctx),
      // Cutover plans (plan.ts).
      ...planActivities(ctx),
      // The supplier census a wave's exit gate takes (census.ts).
      ...censusActivities(ctx),
    },
    platform: {
      ...platformActivities(ctx),
      ...postImportPlatformActivities(ctx),
      ...supplyActivities({ ledger: createSupplyLedger(ctx.pool), platform: ctx.platform }),
    },
    close: () => ctx.closeSources(),
  };
}
