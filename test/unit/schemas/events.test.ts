import { describe, expect, it } from 'vitest';
import { DATA_IMPORT_EVENT_TYPES, dataImportEventSchemas, parseEvent } from '../../../schemas/events';

function envelope(detailType: string, detail: unknown, extra: Record<string, unknown> = {}) {
  return {
    version: '0',
    id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
    'detail-type': detailType,
    source: 'kraken.data_import',
    account: '111122223333',
    time: '2025-01-15T12:00:00Z',
    region: 'eu-west-2',
    resources: [],
    detail,
    ...extra,
  };
}

/** A detail with every catalogued field filled with a string. */
function fullDetail(type: keyof typeof dataImportEventSchemas): Record<string, string> {
  const shape = dataImportEventSchemas[type].v1.shape as Record<string, unknown>;
  return Object.fromEntries(Object.keys(shape).map((k) => [k, `${k}-value`]));
}

describe('parseEvent', () => {
  it('knows all ten data_import types of the catalogue', () => {
    expect(DATA_IMPORT_EVENT_TYPES).toHaveLength(10);
  });

  it.each(DATA_IMPORT_EVENT_TYPES)('parses %s v1 with its typed detail', (type) => {
    const detail = fullDetail(type);
    const parsed = parseEvent(envelope(type, { ...detail, extra_field: 1 }));
    expect(parsed).toMatchObject({ kind: 'known', type, version: 'v1', id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718', time: '2025-01-15T12:00:00Z' });
    if (parsed.kind === 'known') expect(parsed.detail).toEqual(detail);
  });

  it.each(DATA_IMPORT_EVENT_TYPES)('rejects %s with a required field missing as invalid_detail', (type) => {
    const detail = fullDetail(type);
    delete detail[Object.keys(detail)[0]];
    expect(parseEvent(envelope(type, detail))).toMatchObject({ kind: 'unknown', reason: 'invalid_detail', type });
  });

  it('narrows the detail type on the event type', () => {
    const parsed = parseEvent(
      envelope('data_import.import_process.complete', { resource_type: 'account', external_identifier: 'EXT-1', identifier: 'A-1234ABCD' }),
    );
    if (parsed.kind !== 'known' || parsed.type !== 'data_import.import_process.complete') throw new Error('expected complete');
    expect(parsed.detail.identifier).toBe('A-1234ABCD');
  });

  it('reads the version from the detail or a <type>-<version> detail-type; an unlisted version is read by the fields it shares', () => {
    const detail = { resource_type: 'account', external_identifier: 'EXT-1' };
    expect(parseEvent(envelope('data_import.import_process.dry_run_complete', { ...detail, version: 'v1' }))).toMatchObject({ kind: 'known', version: 'v1' });
    expect(parseEvent(envelope('data_import.import_process.dry_run_complete-v1', detail))).toMatchObject({
      kind: 'known',
      type: 'data_import.import_process.dry_run_complete',
    });
    // v2 is not in the catalogue: its shared fields still make sense of it (extra fields dropped).
    expect(parseEvent(envelope('data_import.import_process.dry_run_complete', { ...detail, version: 'v2', new_field: 1 }))).toMatchObject({
      kind: 'known',
      version: 'v2',
      detail: { external_identifier: 'EXT-1' },
    });
    const completeV3 = parseEvent(
      envelope('data_import.import_process.complete-v3', { resource_type: 'ACCOUNT', external_identifier: 'EXT-2', identifier: 'A-1', extra: 'x' }),
    );
    expect(completeV3).toMatchObject({ kind: 'known', version: 'v3', detail: { identifier: 'A-1' } });
    // Without the shared fields it is not understood.
    expect(parseEvent(envelope('data_import.import_process.complete', { resource_type: 'account', version: 'v2' }))).toMatchObject({
      kind: 'unknown',
      reason: 'unknown_version',
    });
  });

  it('tolerates a minimal envelope and a JSON string body (as SQS delivers it)', () => {
    const minimal = { 'detail-type': 'data_import.order_process.complete', detail: { external_order_id: 'O-1', process_id: 'P-1' } };
    expect(parseEvent(minimal)).toMatchObject({ kind: 'known', id: undefined, time: undefined });
    expect(parseEvent(JSON.stringify(minimal))).toMatchObject({ kind: 'known', type: 'data_import.order_process.complete' });
  });

  it('reports a foreign type as unknown with its type', () => {
    const raw = envelope('account.created', { account_number: 'A-1', account_user_emails: [] });
    expect(parseEvent(raw)).toEqual({ kind: 'unknown', reason: 'foreign_type', type: 'account.created', raw });
  });

  it.each([
    [undefined, 'not_an_object'],
    [null, 'not_an_object'],
    [42, 'not_an_object'],
    [[1, 2], 'not_an_object'],
    ['{not json', 'not_json'],
    [{ detail: {} }, 'invalid_envelope'],
    [{ 'detail-type': 'data_import.import_process.error', detail: 'oops' }, 'invalid_envelope'],
  ])('never throws on garbage: %j → %s', (raw, reason) => {
    expect(parseEvent(raw)).toMatchObject({ kind: 'unknown', reason });
  });
});
