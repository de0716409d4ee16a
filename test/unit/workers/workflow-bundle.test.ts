import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../../../workers/workflow-bundle';

const loaded = () => Object.keys(createRequire(__filename).cache).filter((f) => /[\\/]webpack[\\/]lib[\\/]Compiler\.js$/.test(f));

describe('the workflow bundle, built in a child process', () => {
  it('holds every workflow type, and webpack never ran in this process (its memory would stay: workers/workflow-bundle.ts)', async () => {
    expect(loaded()).toEqual([]);
    const bundle = await workflowBundle();
    for (const wf of ['accountImportWorkflow', 'migrationRunWorkflow', 'cutoverPlanWorkflow', 'accountSupplyWorkflow', 'deltaRunWorkflow'])
      expect(bundle.code).toContain(wf);
    expect(loaded()).toEqual([]);
    // Built once per process and kept.
    expect(workflowBundle()).toBe(workflowBundle());
    expect(await workflowBundle()).toBe(bundle);
  });

  it('says why when bundling fails', async () => {
    await expect(workflowBundle(['/nonexistent/interceptor.ts'])).rejects.toThrow(/bundling the workflow code failed: .*interceptor/s);
  });
});
