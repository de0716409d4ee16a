import { describe, expect, it } from 'vitest';
import { retireable, versionRows } from '../../../cli/worker-versions';

const deployment = {
  deploymentName: 'kraken-migrate',
  currentBuildId: '0.2.0+bbbbbbbbbbbb',
  versions: [
    { buildId: '0.1.0+aaaaaaaaaaaa', status: 'draining', createdAt: new Date('2026-11-01T00:00:00Z') },
    { buildId: '0.2.0+bbbbbbbbbbbb', status: 'current', createdAt: new Date('2026-11-20T00:00:00Z') },
    { buildId: '0.0.9+999999999999', status: 'drained', createdAt: new Date('2026-10-01T00:00:00Z') },
  ],
};

describe('kraken-migrate workers: what is left on each version', () => {
  it('lists versions newest first with their pinned counts; only a version nothing goes to and nothing is left on may retire', () => {
    const rows = versionRows(
      deployment,
      new Map([
        ['0.1.0+aaaaaaaaaaaa', { accounts: 3, postImport: 0 }],
        ['0.2.0+bbbbbbbbbbbb', { accounts: 0, postImport: 0 }],
      ]),
    );
    expect(rows.map((r) => [r.buildId, r.current, r.accountsRunning, r.retireable])).toEqual([
      // Current: new accounts go there, even with none running now.
      ['0.2.0+bbbbbbbbbbbb', true, 0, false],
      // Three accounts still pinned to it: its workers must stay.
      ['0.1.0+aaaaaaaaaaaa', false, 3, false],
      ['0.0.9+999999999999', false, 0, true],
    ]);
  });

  it('a carry-over still pinned to an old version keeps it, as an account does', () => {
    const rows = versionRows(deployment, new Map([['0.1.0+aaaaaaaaaaaa', { accounts: 0, postImport: 1 }]]));
    expect(rows.find((r) => r.buildId === '0.1.0+aaaaaaaaaaaa')).toMatchObject({ postImportRunning: 1, retireable: false });
  });

  it('a ramping version gets new workflows: never retireable, though empty', () => {
    const rows = versionRows({ ...deployment, versions: [{ buildId: '0.3.0+cccccccccccc', status: 'ramping' }] }, new Map());
    expect(rows[0]).toMatchObject({ current: false, retireable: false });
  });
});

describe('the retire rule on its own', () => {
  const idle = { status: 'draining', current: false, accountsRunning: 0, postImportRunning: 0 };
  it('an old version nothing goes to and nothing is left on may retire, whatever its draining status', () => {
    expect(retireable(idle)).toBe(true);
    expect(retireable({ ...idle, status: 'drained' })).toBe(true);
    expect(retireable({ ...idle, status: 'inactive' })).toBe(true);
  });

  it('never the current or ramping version, by flag or by status, nor one with an account or carry-over left', () => {
    expect(retireable({ ...idle, current: true })).toBe(false);
    expect(retireable({ ...idle, status: 'current' })).toBe(false);
    expect(retireable({ ...idle, status: 'ramping' })).toBe(false);
    expect(retireable({ ...idle, accountsRunning: 1 })).toBe(false);
    expect(retireable({ ...idle, postImportRunning: 1 })).toBe(false);
  });
});
