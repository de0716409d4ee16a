import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../config';
import { mergeStackEnv, workflowUiUrl } from '../../../cli/context';
import { CliError, describeError, EXIT } from '../../../cli/errors';
import { InputFileError } from '../../../schemas/input-file';
import { SourceAdapterError } from '../../../source/adapter-contract';
import { newRunId, RUN_ID_PATTERN } from '../../../cli/run-id';
import { parseSelectionOptions } from '../../../cli/runs';
import type { StackInfo } from '../../../harness/stack/stack';

const stack: StackInfo = {
  temporalUiUrl: 'http://127.0.0.1:18233',
  temporalAddress: '127.0.0.1:17233',
  temporalNamespace: 'default',
  databaseUrl: 'postgres://postgres:***@127.0.0.1:55432/kraken_migrate',
  s3Endpoint: 'http://127.0.0.1:14566',
  sqsEndpoint: 'http://127.0.0.1:14566',
  eventsQueueUrl: 'http://127.0.0.1:14566/000000000000/q',
  platformBucket: 'bucket',
  sandboxUrl: 'http://127.0.0.1:18800',
  eventsUrl: 'http://127.0.0.1:18801',
  codecUrl: 'http://127.0.0.1:18802',
  dataDir: 'stack-data-dir',
  workerPids: [1],
  startedAt: '2025-06-01T00:00:00Z',
};

describe('mergeStackEnv', () => {
  it('fills unset variables from the stack and its secrets; what the operator set wins', () => {
    const env = mergeStackEnv({ TEMPORAL_ADDRESS: 'temporal.example:7233', PLATFORM_API_KEY: '' }, stack, {
      PLATFORM_API_KEY: 'dik_sandbox_x',
      CODEC_KEYS: 'dev1:k',
    });
    expect(env.TEMPORAL_ADDRESS).toBe('temporal.example:7233');
    expect(env.TEMPORAL_UI_URL).toBe('http://127.0.0.1:18233');
    expect(env.PLATFORM_BASE_URL).toBe('http://127.0.0.1:18800/v1/');
    expect(env.PLATFORM_GRAPHQL_URL).toBe('http://127.0.0.1:18800/v1/graphql/');
    expect(env.S3_ENDPOINT).toBe('http://127.0.0.1:14566');
    expect(env.PLATFORM_API_KEY).toBe('dik_sandbox_x');
    expect(env.CODEC_KEYS).toBe('dev1:k');
  });

  it('never takes a masked database URL; an unmasked one fills in', () => {
    expect(mergeStackEnv({}, stack, undefined).DATABASE_URL).toBeUndefined();
    const embedded = 'postgres://postgres:postgres@127.0.0.1:55432/kraken_migrate';
    expect(mergeStackEnv({}, { ...stack, databaseUrl: embedded }, undefined).DATABASE_URL).toBe(embedded);
    expect(mergeStackEnv({ DATABASE_URL: 'postgres://mine@db/x' }, { ...stack, databaseUrl: embedded }, undefined).DATABASE_URL).toBe('postgres://mine@db/x');
  });
});

describe('errors and exit codes', () => {
  it('maps config, usage and unreachable errors', () => {
    expect(describeError(new ConfigError(['A=1: bad', 'B=2: bad']))).toEqual({
      lines: ['config error: A=1: bad', 'config error: B=2: bad'],
      exitCode: EXIT.usage,
    });
    expect(describeError(new CliError('temporal_unreachable', 'down', EXIT.unreachable)).exitCode).toBe(3);
    expect(describeError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })).exitCode).toBe(3);
  });

  it('an input file that cannot be read as one: exit 4, one line with its code, no control character of the name', () => {
    expect(describeError(new InputFileError('not_a_regular_file', 'a\u001b[2J\nb.jsonl is a FIFO: only a regular file is read'))).toEqual({
      lines: ['error [not_a_regular_file]: a [2J b.jsonl is a FIFO: only a regular file is read'],
      exitCode: EXIT.operational,
    });
    expect(describeError(new SourceAdapterError('source_unreadable', 'x')).exitCode).toBe(4);
  });
});

describe('run ids and selections', () => {
  it('makes sortable UTC run ids', () => {
    const id = newRunId(new Date('2025-06-01T09:08:07Z'), () => 'ab12');
    expect(id).toBe('run-20250601-090807-ab12');
    expect(RUN_ID_PATTERN.test(id)).toBe(true);
    expect(newRunId()).toMatch(/^run-\d{8}-\d{6}-[0-9a-f]{4}$/);
  });

  it('--limit or --accounts is the selection (they exclude each other: run-start-options.test.ts)', () => {
    expect(parseSelectionOptions({ limit: 5 })).toEqual({ kind: 'all', limit: 5 });
    expect(parseSelectionOptions({})).toEqual({ kind: 'all' });
    expect(parseSelectionOptions({ accounts: __filename })).toEqual({ kind: 'list', path: __filename });
  });

  it('links to the Temporal UI with the workflow id encoded', () => {
    expect(workflowUiUrl({ TEMPORAL_UI_URL: 'http://127.0.0.1:8233/', TEMPORAL_NAMESPACE: 'default' }, 'migration-run/run-1')).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows/migration-run%2Frun-1',
    );
  });
});
