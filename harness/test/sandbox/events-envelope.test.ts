import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../schemas/events';
import { buildEnvelope, IMPORT_EVENT_TYPES } from '../../sandbox/events/envelope';
import { toInboxRecord } from '../../../ledger/inbox-record';

// The sandbox and the receiver are written apart; this pins them to each other so a change in the
// envelope the sandbox emits cannot silently turn every event into an unmatched one.
describe('events the sandbox emits', () => {
  const ctx = { source: 'kraken.data-import', account: '123456789012', region: 'eu-west-2' };

  it('parse as known events and route by external identifier', () => {
    const env = buildEnvelope(
      IMPORT_EVENT_TYPES.complete,
      { resource_type: 'ACCOUNT', external_identifier: 'LGC-000001', identifier: 'A-1B2C3D4E' },
      ctx,
      Date.UTC(2026, 0, 1),
    );
    const raw = JSON.stringify(env);
    const parsed = parseEvent(raw);
    expect(parsed.kind).toBe('known');
    const rec = toInboxRecord(parsed, JSON.parse(raw), raw);
    expect(rec).toMatchObject({ eventType: IMPORT_EVENT_TYPES.complete, externalIdentifier: 'LGC-000001', identifier: 'A-1B2C3D4E', matchStatus: 'pending' });
  });

  it('carry the error code of an error event', () => {
    const env = buildEnvelope(
      IMPORT_EVENT_TYPES.error,
      { resource_type: 'ACCOUNT', external_identifier: 'LGC-000002', error_code: 'tariff_code_not_found', error_detail: 'x' },
      ctx,
      Date.UTC(2026, 0, 1),
    );
    const raw = JSON.stringify(env);
    const rec = toInboxRecord(parseEvent(raw), JSON.parse(raw), raw);
    expect(rec).toMatchObject({ externalIdentifier: 'LGC-000002', errorCode: 'tariff_code_not_found' });
  });
});
