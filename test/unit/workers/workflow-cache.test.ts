import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../config';
import { workflowCacheOptions } from '../../../workers/workflow-cache';

describe('WORKER_MAX_CACHED_WORKFLOWS', () => {
  it('defaults to the cache of 1000 workflows the worker always had', () => {
    expect(parseConfig({}).WORKER_MAX_CACHED_WORKFLOWS).toBe(1000);
    expect(workflowCacheOptions(parseConfig({}).WORKER_MAX_CACHED_WORKFLOWS)).toEqual({ maxCachedWorkflows: 1000, maxConcurrentWorkflowTaskExecutions: 40 });
  });

  it('takes 0 (no cache, sticky execution off) and keeps the 40 workflow task slots', () => {
    const cfg = parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '0' });
    expect(cfg.WORKER_MAX_CACHED_WORKFLOWS).toBe(0);
    expect(workflowCacheOptions(cfg.WORKER_MAX_CACHED_WORKFLOWS)).toEqual({ maxCachedWorkflows: 0, maxConcurrentWorkflowTaskExecutions: 40 });
  });

  it('takes a small cache and lowers the task slots to it, as the SDK requires', () => {
    const cfg = parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: '5' });
    expect(workflowCacheOptions(cfg.WORKER_MAX_CACHED_WORKFLOWS)).toEqual({ maxCachedWorkflows: 5, maxConcurrentWorkflowTaskExecutions: 5 });
  });

  it.each([
    ['1', /WORKER_MAX_CACHED_WORKFLOWS="1": 0 \(no cache, sticky execution off\) or at least 2/],
    ['-3', /WORKER_MAX_CACHED_WORKFLOWS="-3": 0 or more/],
    ['2.5', /WORKER_MAX_CACHED_WORKFLOWS="2.5": a whole number of workflows/],
    ['many', /WORKER_MAX_CACHED_WORKFLOWS="many": a whole number of workflows/],
  ])('refuses %s, naming the variable and the rule', (value, message) => {
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: value })).toThrowError(ConfigError);
    expect(() => parseConfig({ WORKER_MAX_CACHED_WORKFLOWS: value })).toThrowError(message);
  });
});
