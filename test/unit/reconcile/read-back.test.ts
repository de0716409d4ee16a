import { describe, expect, it } from 'vitest';
import { readBackAccount } from '../../../activities/read-back';
import type { ReconciliationRow } from '../../../ledger/reconciliation';
import { realisticAccount } from '../../../schemas/fixtures';
import { accountRecordFromPayload, alterField, omitFields } from '../../../harness/sandbox/post-import/account-record';
import { graphqlAccountFromPayload, withReadBackFaults } from '../../../harness/sandbox/post-import/graphql-account';

/**
 * The read-back of one created account (activities/read-back.ts) with the ledger and the platform
 * faked: the REST record's check and the GraphQL account's as one outcome. A difference on either
 * side makes the account `differing` and is recorded; the end-to-end proof on the sandbox is
 * test/e2e/post-import/graphql-read-back.test.ts; the merge and the verdict alone: test/unit/domain/reconciliation.test.ts.
 */

const payload: Record<string, any> = realisticAccount();
const NUMBER = 'A-1';
const FLIP = { graphqlFlipBalanceRate: 1, graphqlAlterNameRate: 0 };
const TARIFF = 'properties.*.electricity_meter_points.*.agreements.*.tariff_code';
const MPAN = 'properties.*.electricity_meter_points.*.mpan';

async function readBack(o: { rest?: unknown; graphql?: unknown; stored?: unknown } = {}) {
  const rows: ReconciliationRow[] = [];
  const result = await readBackAccount(
    {
      ledger: { loadPayload: async () => ({ request: o.stored ?? { payload } }) } as never,
      reconciliations: { record: async (r: ReconciliationRow) => rows.push(r) > 0 },
      platform: {
        getAccount: async () => ('rest' in o ? o.rest : accountRecordFromPayload(NUMBER, payload)),
        readAccount: async () => ('graphql' in o ? o.graphql : graphqlAccountFromPayload(NUMBER, payload)),
      } as never,
    },
    { runId: 'r1', supplierCode: 'SUP', externalAccountNumber: 'EXT-1', accountNumber: NUMBER, checkedBy: 'workflow' },
  );
  expect(rows).toHaveLength(1);
  return { result, row: rows[0] };
}

describe('reading a created account back: the REST record and the GraphQL account as one', () => {
  it('both as sent: matched, every leaf of both counted, the balances recorded', async () => {
    const { result, row } = await readBack();
    expect(result).toMatchObject({ status: 'matched', differing: 0, unverified: 0, fields: [], unverifiedFields: [] });
    // The GraphQL account alone has 16 leaves (balance, ledger, six user and seven billing fields); the REST record more.
    expect(result.checked).toBeGreaterThan(16);
    expect(row).toMatchObject({ status: 'matched', checkedFields: result.checked, matchedFields: result.checked, unverifiedFields: 0, differences: [] });
    expect(row.byField).toMatchObject({ balance: { matched: 1 }, [TARIFF]: { matched: 2 } });
    expect([row.sourceBalancePence, row.platformBalancePence]).toEqual(['4217', '4217']);
    // Stored as the payload itself (not under `payload`): the same.
    expect((await readBack({ stored: payload })).result).toEqual(result);
  });

  it('a difference in the GraphQL account alone (the balance sign) makes the account differing, with the REST record matching', async () => {
    const { result, row } = await readBack({ graphql: withReadBackFaults(graphqlAccountFromPayload(NUMBER, payload), FLIP) });
    expect(result).toMatchObject({ status: 'differing', differing: 2, fields: ['balance', 'ledgers.*.balance'] });
    expect(row.status).toBe('differing');
    expect(row.differences.map((d) => d.path)).toEqual(['balance', 'ledgers.0.balance']);
    expect([row.sourceBalancePence, row.platformBalancePence]).toEqual(['4217', '-4217']);
    expect(row.matchedFields).toBe(result.checked - 2);
    expect(row.byField).toMatchObject({ balance: { matched: 0, differing: 1 }, [TARIFF]: { matched: 2, differing: 0 } });
  });

  it('a difference in the REST record alone makes it differing too; both at once are both recorded', async () => {
    const altered = alterField(accountRecordFromPayload(NUMBER, payload), 'properties.0.electricity_meter_points.0.agreements.0.tariff_code');
    const rest = await readBack({ rest: altered });
    expect(rest.result).toMatchObject({ status: 'differing', differing: 1, fields: [TARIFF] });
    const both = await readBack({ rest: altered, graphql: withReadBackFaults(graphqlAccountFromPayload(NUMBER, payload), FLIP) });
    expect(both.result).toMatchObject({ status: 'differing', differing: 3, fields: [TARIFF, 'balance', 'ledgers.*.balance'] });
    expect(both.row.differences.map((d) => d.path)).toEqual([
      'properties.0.electricity_meter_points.0.agreements.0.tariff_code',
      'balance',
      'ledgers.0.balance',
    ]);
  });

  it('a field the record leaves out is unverified, not a difference: the account stays matched', async () => {
    const { result, row } = await readBack({ rest: omitFields(accountRecordFromPayload(NUMBER, payload), [MPAN]) });
    expect(result).toMatchObject({ status: 'matched', differing: 0, unverified: 1, unverifiedFields: [MPAN] });
    // Not counted as checked: neither matched nor differing.
    expect(row).toMatchObject({ unverifiedFields: 1, matchedFields: result.checked, checkedFields: result.checked });
  });

  it('no account behind the number, or none in GraphQL: account_missing, naming which', async () => {
    const none = await readBack({ rest: undefined });
    expect(none.result).toEqual({ status: 'account_missing', checked: 0, differing: 1, unverified: 0, fields: ['number'], unverifiedFields: [] });
    expect(none.row).toMatchObject({ status: 'account_missing', checkedFields: 0, differences: [{ path: 'number', field: 'number', expected: NUMBER }] });
    expect((await readBack({ graphql: undefined })).result).toMatchObject({ status: 'account_missing', fields: ['account'] });
  });
});
