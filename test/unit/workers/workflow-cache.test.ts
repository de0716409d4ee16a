import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../config';
import { workflowCacheOptions } from '../../../workers/workflow-cache';

describe('WORKER_MAX_CACHED_WORKFLOWS', () => {
  it('defaults to the cache of 1000 workflows the worker always had', () => {
    expect(parseConfig({}).WORKER_MAX_CACHED_WORKFLOWS).toBe(1000);
    expect(workflowCacheOptions(parseConfig({}).WORKER_MAX_CACHED_WORKFLOWS)).toEqual({ maxCachedWorkflows: 1000, maxConcurrentWorkflowTaskExecutions: 40 });
  });

  it('takes a small cache, down to 2, and lowers the task slots to it, as the SDK requires', () => {
    const cfg = parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '5' });
    expect(workflowCacheOptions(cfg.WORKER_MAX_CACHED_WORKFLOWS)).toEqual({ maxCachedWorkflows: 5, maxConcurrentWorkflowTaskExecutions: 5 });
    expect(workflowCacheOptions(parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '2' }).WORKER_MAX_CACHED_WORKFLOWS)).toEqual({
      maxCachedWorkflows: 2,
      maxConcurrentWorkflowTaskExecutions: 2,
    });
  });

  it.each([
    ['0', /WORKER_MAX_CACHED_WORKFLOWS="0": at least 2 \(0 turns sticky execution off, which drops local activity results in this SDK; 1 does not exist\)/],
    ['1', /WORKER_MAX_CACHED_WORKFLOWS="1": at least 2/],
    ['-3', /WORKER_MAX_CACHED_WORKFLOWS="-3": at least 2/],
    ['2.5', /WORKER_MAX_CACHED_WORKFLOWS="2.5": a whole number of workflows/],
    ['many', /WORKER_MAX_CACHED_WORKFLOWS="many": a whole number of workflows/],
  ])('refuses %s, naming the variable and the rule', (value, message) => {
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: value })).toThrowError(ConfigError);
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: value })).toThrowError(message);
  });
});
