import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { z } from 'zod';
import { FAILURE_CONVERTER_PATH } from '../codec/data-converter';

/**
 * The reusable V8 context evaluates the bundle's modules again for every workflow. These domain
 * modules hold no state (constants and pure functions) but import zod, whose evaluation per workflow
 * was a fifth of the workflow thread's CPU, or luxon (the plan's windows: 30% of what was left
 * evaluated per account workflow, which never calls it): they (and zod and luxon with them) are
 * evaluated once and shared (docs/throughput.md, "Where the cost goes").
 * test/unit/workers/preload-modules.test.ts keeps the list whole.
 */
export const WORKFLOW_PRELOAD_MODULES: readonly string[] = ['../domain/supply.ts', '../domain/census.ts', '../domain/plan-windows.ts'].map((m) =>
  path.resolve(__dirname, m),
);

/** Webpack over the workflow code, in this process; the failure converter goes in with it. */
export function bundleWorkflows(interceptorModules: readonly string[]): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../workflows/index.ts'),
    workflowInterceptorModules: [...interceptorModules],
    failureConverterPath: FAILURE_CONVERTER_PATH,
    preloadModules: [...WORKFLOW_PRELOAD_MODULES],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => process.stderr.write(m + '\n'), log() {} },
  });
}

const bundleSchema = z.object({ code: z.string().min(1), sourceMap: z.string() });
const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * The workflow bundle, built once per process in a child process (this file run as a script) and
 * kept. Webpack and swc run in the worker's own process left it about 230 MB more resident for good
 * (its heap and the native allocator keep what they reached): a third of a worker's memory at 100
 * accounts in flight (docs/throughput.md, "Where the cost goes"). The child gives it all back.
 * `interceptorModules`: workflow interceptors bundled in too (the upgrade test's version B).
 */
export function workflowBundle(interceptorModules: readonly string[] = []): Promise<WorkflowBundleWithSourceMap> {
  const key = interceptorModules.join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = promisify(execFile)(process.execPath, ['--require', require.resolve('tsx/cjs'), __filename, ...interceptorModules], {
      maxBuffer: 256 * 1024 * 1024,
    }).then(
      ({ stdout }) => bundleSchema.parse(JSON.parse(stdout)),
      (e: Error & { stderr?: string }) => {
        throw new Error(`bundling the workflow code failed: ${e.stderr?.trim() || e.message}`);
      },
    );
    bundles.set(key, bundle);
  }
  return bundle;
}

// The child: argv holds the interceptor modules; the bundle goes to stdout as JSON.
if (require.main === module) {
  bundleWorkflows(process.argv.slice(2)).then(
    (b) => process.stdout.write(JSON.stringify({ code: b.code, sourceMap: b.sourceMap })),
    (e: unknown) => {
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
