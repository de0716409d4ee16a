import { SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ALL_SEARCH_ATTRIBUTES } from '../../../domain/search-attributes';
import { startTestServer, type RunningTestServer } from '../../../harness/stack/temporal-test-server';
import { workflowBundle } from '../../../workers/workflow-bundle';

export interface TimeSkipping {
  server: RunningTestServer;
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleWithSourceMap;
  stop(): Promise<void>;
}

/**
 * Temporal's time-skipping test server (harness/stack/temporal-test-server.ts), a client environment
 * on it with the project's search attributes, and the workers' workflow bundle: what every
 * durable-time test starts from.
 */
export async function startTimeSkipping(): Promise<TimeSkipping> {
  const server = await startTestServer();
  // TestWorkflowEnvironment on a server started here: its public factories either download the test
  // server (refused here) or connect without time skipping; `create` is the one that does both.
  const create = (TestWorkflowEnvironment as unknown as { create(o: object): Promise<TestWorkflowEnvironment> }).create.bind(TestWorkflowEnvironment);
  const env = await create({ server: { type: 'existing' }, address: server.address, namespace: 'default', supportsTimeSkipping: true });
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(
      ALL_SEARCH_ATTRIBUTES.map((k) => [
        k.name,
        k.type === SearchAttributeType.KEYWORD ? temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD : 0,
      ]),
    ),
  });
  return {
    server,
    env,
    bundle: await workflowBundle(),
    async stop() {
      await env.teardown();
      await server.stop();
    },
  };
}
