import type { Client } from '@temporalio/client';
import type { S3Client } from '@aws-sdk/client-s3';
import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { PlatformClient, TariffPreflight } from '../clients/platform';
import type { Config } from '../config';
import { createLedger, type Ledger } from '../ledger';
import { createSourceAdapter, type SourceAdapter } from '../source/adapter';
import { defaultMapping, loadMapping, type CodeMapping } from '../source/mapping';
import type { SourceSpecRef } from '../workflows/inputs';

/** What the activities are built from: nothing reads globals or the environment after this. */
export interface ActivityDeps {
  pool: Pool;
  s3: S3Client;
  platform: PlatformClient;
  config: Config;
  logger: pino.Logger;
  /** For starting, describing and signalling account workflows (the run's activities). */
  temporal?: () => Promise<Client>;
  mapping?: CodeMapping;
}

/** Shared, per-worker state of the activities: ledger, source adapters, catalogue caches. */
export interface ActivityContext extends ActivityDeps {
  ledger: Ledger;
  mapping: CodeMapping;
  adapterFor(spec: SourceSpecRef): SourceAdapter;
  /** A tariff pre-flight per run, so one run's catalogue cache is reused by all its accounts. */
  tariffPreflight(runId: string): TariffPreflight;
}

export function createActivityContext(deps: ActivityDeps): ActivityContext {
  const adapters = new Map<string, SourceAdapter>();
  const checkers = new Map<string, TariffPreflight>();
  return {
    ...deps,
    ledger: createLedger(deps.pool),
    mapping: deps.mapping ?? (deps.config.SOURCE_MAPPING_FILE ? loadMapping(deps.config.SOURCE_MAPPING_FILE) : defaultMapping()),
    adapterFor(spec) {
      const key = JSON.stringify(spec);
      let a = adapters.get(key);
      if (!a) {
        a = createSourceAdapter(spec, { pool: deps.pool });
        adapters.set(key, a);
      }
      return a;
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

export function attemptRef<T extends { runId: string; externalAccountNumber: string; supplierCode: string; dryRun: boolean }>(x: T) {
  return { runId: x.runId, externalAccountNumber: x.externalAccountNumber, supplierCode: x.supplierCode, dryRun: x.dryRun };
}
