import { describe, expect, it } from 'vitest';
import { pgPassStats, statementOwner, type PgSnapshot } from '../../measure/pg-statements';

// Each call writes 100 bytes of WAL, one call in ten a full-page image.
const snap = (rows: Array<[string, boolean, number, number, string]>, autovacuums = 0, checkpoints = 0): PgSnapshot => ({
  statements: new Map(
    rows.map(([key, toplevel, calls, ms, query]) => [key, { key, toplevel, calls, ms, rows: calls, walBytes: calls * 100, walFpi: calls / 10, query }]),
  ),
  autovacuums,
  checkpoints,
});

describe('Postgres statements per account over a pass', () => {
  it('tells the sandbox’s statements, the pipeline’s and transaction control apart by their text', () => {
    expect(statementOwner('UPDATE sandbox.events e SET lease_until = now()')).toBe('sandbox');
    expect(statementOwner('SELECT $2 FROM ONLY "sandbox"."import_processes" x WHERE "id" OPERATOR(pg_catalog.=) $1 FOR KEY SHARE OF x')).toBe('sandbox');
    expect(statementOwner('SELECT $3 FROM ONLY "migrate"."account_attempts" x WHERE "run_id" OPERATOR(pg_catalog.=) $1')).toBe('pipeline');
    expect(statementOwner('select migrate.free_platform_permit($1)')).toBe('pipeline');
    expect(statementOwner('BEGIN')).toBe('either');
    expect(statementOwner('commit')).toBe('either');
    expect(statementOwner('select begin_at from migrate.runs')).toBe('pipeline');
  });

  it('counts round trips (top-level) apart from statements run inside them, per account, deltas only', () => {
    const before = snap(
      [
        ['1:true', true, 100, 50, 'update migrate.account_attempts set outcome = $1'],
        ['2:false', false, 40, 20, 'insert into migrate.run_checkpoint_counts'],
        ['3:true', true, 7, 1, 'UPDATE sandbox.import_processes'],
      ],
      3,
      1,
    );
    const after = snap(
      [
        ['1:true', true, 110, 80, 'update migrate.account_attempts set outcome = $1'],
        ['2:false', false, 60, 30, 'insert into migrate.run_checkpoint_counts'],
        ['3:true', true, 27, 2, 'UPDATE sandbox.import_processes'],
        ['4:true', true, 10, 5, 'BEGIN'],
        ['5:true', true, 5, 1, 'select 1'], // new since `before`
      ],
      4,
      1,
    );
    const s = pgPassStats(before, after, 10);
    expect(s.callsPerAccount).toEqual({ pipeline: 1.5, sandbox: 2, either: 1 });
    expect(s.nestedCallsPerAccount).toBe(2);
    expect(s.execMsPerAccount).toBe(3.1);
    // The pipeline's round trips only: 10 + 5 calls (the nested ones are inside them, the sandbox's and BEGIN are not ours).
    expect(s.walBytesPerAccount).toBe(150);
    expect(s.walFpiPerAccount).toBe(0.15);
    expect(s).toMatchObject({ autovacuums: 1, checkpoints: 0 });
    expect(s.top[0]).toEqual({
      query: 'update migrate.account_attempts set outcome = $1',
      owner: 'pipeline',
      nested: false,
      callsPerAccount: 1,
      msPerAccount: 3,
      rowsPerAccount: 1,
      walBytesPerAccount: 100,
    });
    expect(s.top.map((t) => t.nested)).toContain(true);
  });
});
