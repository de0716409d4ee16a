import type { Client } from '@temporalio/client';
import type { S3Client } from '@aws-sdk/client-s3';
import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { PlatformClient, TariffPreflight } from '../clients/platform';
import type { Config } from '../config';
import {
  createLedger,
  createPaceStore,
  createPostImportLedger,
  createReconciliationLedger,
  type Ledger,
  type PostImportLedger,
  type ReconciliationLedger,
} from '../ledger';
import { DEFAULT_PACE, type PaceParams } from '../domain/platform-pace';
import { createPermitGate, temporalWorkflowState, type PermitGate } from './platform-permits';
import {
  createPayloadSource,
  createSourceAdapter,
  isPayloadSpec,
  type LegacySourceSpec,
  type PayloadSource,
  type PayloadSourceSpec,
  type SourceAdapter,
} from '../source/adapter';
import { createChangeFeed, type ChangeFeed } from '../source/changes';
import { defaultMapping, loadMapping, type CodeMapping } from '../source/mapping';
import type { SourceSpecRef } from '../domain/inputs';
import { createPayloadSourcePool } from './payload-sources';

/** What the activities are built from: nothing reads globals or the environment after this. */
export interface ActivityDeps {
  pool: Pool;
  s3: S3Client;
  platform: PlatformClient;
  config: Config;
  logger: pino.Logger;
  /** For starting, describing and signalling account workflows (the run's activities). */
  temporal: () => Promise<Client>;
  mapping?: CodeMapping;
  /** A payload source unused this long closes (activities/payload-sources.ts; default 5 minutes). */
  payloadSourceIdleMs?: number;
}

/** Shared, per-worker state of the activities: ledgers, source adapters, catalogue caches. */
export interface ActivityContext extends ActivityDeps {
  ledger: Ledger;
  /** Items carried over after import (activities/post-import.ts). */
  postImportItems: PostImportLedger;
  /** Read-backs of created accounts (activities/read-back.ts). */
  reconciliations: ReconciliationLedger;
  mapping: CodeMapping;
  /** Permits from the tenant's shared window of accounts in processing (PLATFORM_PACE=adaptive; domain/platform-pace.ts), else undefined: the fixed queue rate alone. */
  permits?: PermitGate;
  adapterFor(spec: LegacySourceSpec): SourceAdapter;
  /**
   * A team's own payloads (a file or a table), read on behalf of run `runId`. Shared by the worker's
   * activities and closed when idle or when its runs end (activities/payload-sources.ts); its
   * `close()` is a no-op.
   */
  payloadsFor(spec: PayloadSourceSpec, runId?: string): PayloadSource;
  /** Either kind, for paging through its account numbers. */
  listerFor(spec: SourceSpecRef, runId?: string): Pick<SourceAdapter, 'listAccountNumbers'>;
  /** Run `runId` has ended: the payload sources only it used here close now. */
  runEnded(runId: string): Promise<void>;
  /** A tariff pre-flight per run, so one run's catalogue cache is reused by all its accounts. */
  tariffPreflight(runId: string): TariffPreflight;
  /** Closes every payload source opened here (at worker shutdown). */
  closeSources(): Promise<void>;
  /** What changed in a source since extraction, one feed per source. */
  changeFeedFor(spec: SourceSpecRef): ChangeFeed;
}

export function createActivityContext(deps: ActivityDeps): ActivityContext {
  const adapters = new Map<string, SourceAdapter>();
  const payloadSources = createPayloadSourcePool((spec) => createPayloadSource(spec, { pool: deps.pool }), { idleMs: deps.payloadSourceIdleMs });
  const checkers = new Map<string, TariffPreflight>();
  const feeds = new Map<string, ChangeFeed>();
  return {
    ...deps,
    ledger: createLedger(deps.pool),
    postImportItems: createPostImportLedger(deps.pool),
    reconciliations: createReconciliationLedger(deps.pool),
    ...(deps.config.PLATFORM_PACE === 'adaptive'
      ? {
          permits: createPermitGate(
            createPaceStore(deps.pool, paceParams(deps.config), { leaseMs: deps.config.PLATFORM_PERMIT_LEASE_MINUTES * 60_000 }),
            deps.config.PLATFORM_V2_BASE_URL,
            {
              tickMs: PERMIT_TICK_MS,
              logger: deps.logger,
              sweep: { workflowState: temporalWorkflowState(deps.temporal), olderThanMs: PERMIT_CHECK_AFTER_MS, everyMs: PERMIT_SWEEP_EVERY_MS, batch: 50 },
            },
          ),
        }
      : {}),
    mapping: deps.mapping ?? (deps.config.SOURCE_MAPPING_FILE ? loadMapping(deps.config.SOURCE_MAPPING_FILE) : defaultMapping()),
    adapterFor(spec) {
      return cached(adapters, spec, () => createSourceAdapter(spec, { pool: deps.pool }));
    },
    payloadsFor(spec, runId) {
      return payloadSources.get(spec, runId);
    },
    listerFor(spec, runId) {
      return isPayloadSpec(spec) ? this.payloadsFor(spec, runId) : this.adapterFor(spec);
    },
    runEnded(runId) {
      return payloadSources.runEnded(runId);
    },
    closeSources() {
      return payloadSources.closeAll();
    },
    changeFeedFor(spec) {
      return cached(feeds, spec, () => createChangeFeed(spec, { pool: deps.pool }));
    },
    tariffPreflight(runId) {
      let c = checkers.get(runId);
      if (!c) {
        c = deps.platform.tariffPreflight();
        checkers.set(runId, c);
        // Bounded: the oldest run's cache goes first.
        if (checkers.size > 20) checkers.delete(checkers.keys().next().value!);
      }
      return c;
    },
  };
}

/** One source object per spec and worker (legacy adapters, change feeds). */
function cached<T>(map: Map<string, T>, spec: SourceSpecRef, create: () => T): T {
  const key = JSON.stringify(spec);
  let a = map.get(key);
  if (!a) {
    a = create();
    map.set(key, a);
  }
  return a;
}

export function attemptRef<T extends { runId: string; externalAccountNumber: string; supplierCode: string; dryRun: boolean }>(x: T) {
  return { runId: x.runId, externalAccountNumber: x.externalAccountNumber, supplierCode: x.supplierCode, dryRun: x.dryRun };
}

/** The control law's parameters from the configuration (the ceiling: PLATFORM_MAX_IN_PROCESSING). */
export function paceParams(cfg: Config): PaceParams {
  return {
    ...DEFAULT_PACE,
    maxWindow: cfg.PLATFORM_MAX_IN_PROCESSING,
    initialWindow: Math.min(cfg.PLATFORM_PACE_INITIAL_WINDOW, cfg.PLATFORM_MAX_IN_PROCESSING),
  };
}

/** How often a worker's waiting accounts ask for permits again (a permit frees every processing time ÷ window). */
const PERMIT_TICK_MS = 200;
/**
 * A permit held longer than this (or three times the measured hold, if longer) is checked against its
 * account workflow in Temporal: a workflow terminated mid-import never records an outcome.
 */
const PERMIT_CHECK_AFTER_MS = 30_000;
/** How often a worker whose accounts wait sweeps (a describe call per long-held permit, at most 50). */
const PERMIT_SWEEP_EVERY_MS = 15_000;
