import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_CONVERTER_PATH } from '../../../codec/data-converter';
import { workflowBundle } from '../../../workers/workflow-bundle';
import { readCorpus } from '../../replay/corpus';

// Histories written by the last released workflow code (test/replay/histories, recorded by
// `npm run replay:record`), replayed with today's code: a change that would break a workflow that
// is already running fails here, naming the workflow, the history file and the event.
const corpus = readCorpus();
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  bundle = await workflowBundle();
}, 180_000);

describe('workflows already running replay with this code', () => {
  it('the corpus covers every workflow type and the states a migration leaves them in', () => {
    expect(new Set(corpus.map((c) => c.workflowType))).toEqual(
      new Set(['migrationRunWorkflow', 'accountImportWorkflow', 'deltaRunWorkflow', 'accountDeltaWorkflow', 'cutoverPlanWorkflow', 'accountSupplyWorkflow']),
    );
    expect(corpus.length).toBeGreaterThanOrEqual(15);
  });

  it.each(corpus.map((c) => [c.file, c] as const))(
    '%s',
    async (_file, c) => {
      try {
        // Payloads are stored decrypted (test/replay/corpus.ts): no codec, the project's failure converter.
        await Worker.runReplayHistory({ workflowBundle: bundle, dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH } }, c.history, c.workflowId);
      } catch (err) {
        throw new Error(
          `${c.workflowType} ${c.workflowId} (${c.scenario}), recorded by ${c.recordedBy} in test/replay/histories/${c.file}, ` +
            `no longer replays with this code: ${(err as Error).message}\n` +
            'Workflows like it are running in migrations now: put the change behind patched() (README, "Upgrading during a migration") ' +
            'or record a new corpus only when no workflow of the old version can still be running.',
          { cause: err },
        );
      }
    },
    120_000,
  );
});
