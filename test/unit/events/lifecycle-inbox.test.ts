import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../schemas/events';
import { toInboxRecord } from '../../../ledger/inbox-record';
import { isLifecycleEvent } from '../../../domain/event-types';

/**
 * A supply lifecycle event as the inbox keeps it: known, routable, the platform's account number
 * where the router looks for it, and deduplicated per join process and point (two points of one
 * account are two events, the same one delivered twice is one).
 */

const envelope = (type: string, mpxn: string, id: string) => ({
  version: '0',
  id,
  'detail-type': type,
  source: 'kraken',
  account: '111122223333',
  time: '2026-11-28T10:00:00Z',
  region: 'eu-west-2',
  resources: [],
  detail: {
    event_type: type,
    version: 'v1',
    payload: {
      account_number: 'A-0000ABCD',
      join_supplier_process_number: `JSP-${mpxn}`,
      subtype: 'ON_MARKET_SWITCH',
      supply_points: [{ external_identifier: mpxn, market_name: 'ELECTRICITY', confirmed_supply_start_date: '2026-11-28' }],
    },
  },
});

const record = (type: string, mpxn: string, id: string) => {
  const value = envelope(type, mpxn, id);
  return toInboxRecord(parseEvent(value), value, JSON.stringify(value));
};

describe('lifecycle events in the inbox', () => {
  it('are known and routed by the platform account number', () => {
    const r = record('lifecycle.join-supplier.completed', '1200060176720', 'e-1');
    expect(r).toMatchObject({ eventType: 'lifecycle.join-supplier.completed', identifier: 'A-0000ABCD', matchStatus: 'pending', payloadVersion: 'v1' });
    expect(isLifecycleEvent(r.eventType)).toBe(true);
    expect(isLifecycleEvent('data_import.import_process.complete')).toBe(false);
  });

  it('dedupe by process and point: a redelivery under a new id is the same event, another point is another', () => {
    const a = record('lifecycle.join-supplier.completed', '1200060176720', 'e-1');
    const again = record('lifecycle.join-supplier.completed', '1200060176720', 'e-2');
    const other = record('lifecycle.join-supplier.completed', '1200060176731', 'e-3');
    const cancelled = record('lifecycle.join-supplier.cancelled', '1200060176720', 'e-4');
    expect(again.dedupeKey).toBe(a.dedupeKey);
    expect(new Set([a.dedupeKey, other.dedupeKey, cancelled.dedupeKey]).size).toBe(3);
  });
});
