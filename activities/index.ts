import type { Client } from '@temporalio/client';
import type { S3Client } from '@aws-sdk/client-s3';
import type pino from 'pino';
import type { Pool } from '../clients/db';
import type { PlatformClient, TariffPreflight } from '../clients/platform';
import type { Config } from '../config';
import { createMainActivities } from './main';
import { createPlatformActivities } from './platform';

export type { MainActivities, PlatformActivities } from './types';

/** Activities built from their dependencies: nothing reads globals. */
export function createActivities(deps: { pool: Pool; s3: S3Client; platform: PlatformClient; config: Config; logger: pino.Logger; temporal?: () => Promise<Client> }) {
  // One catalogue cache per run (bounded), shared by all of the run's accounts on this worker.
  const checkers = new Map<string, TariffPreflight>();
  const tariffPreflight = (runId: string) => {
    let c = checkers.get(runId);
    if (!c) {
      c = deps.platform.tariffPreflight();
      checkers.set(runId, c);
      if (checkers.size > 20) checkers.delete(checkers.keys().next().value!);
    }
    return c;
  };
  return {
    main: createMainActivities({ ...deps, tariffPreflight }),
    platform: createPlatformActivities(deps),
  };
}
