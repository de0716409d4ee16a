import { patched, upsertSearchAttributes, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { KmStage } from '../../../../domain/search-attributes';

/**
 * Version B's workflow change (the upgrade test, bundled into every workflow of B's worker): a new
 * first command, marking the execution in the UI (`KmStage = 'version-b'`). A run started on
 * version A that moves to B replays its history there: without patched() this extra command would
 * meet A's first event and fail the run's task with a nondeterminism error; with it, replay skips it.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        if (patched('upgrade-test-version-b')) upsertSearchAttributes([{ key: KmStage, value: 'version-b' }]);
        return next(input);
      },
    },
  ],
});
