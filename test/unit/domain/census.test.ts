import { describe, expect, it } from 'vitest';
import { censusClass, censusGateMet, countCensus, emptyCensusCounts, ledgerHolds, type CensusFacts } from '../../../domain/census';

const NOW = Date.parse('2030-01-10T12:00:00Z');
const HOUR = 3600_000;
const facts = (tenant: CensusFacts['tenant'], ledger: CensusFacts['ledger'], scheduledAtMs: number | null = null): CensusFacts => ({
  tenant,
  ledger,
  scheduledAtMs,
});

describe('censusClass: every pairing of what the tenant and the ledger hold', () => {
  it.each([
    ['imported', 'completed', 'matched'],
    ['pending', 'completed', 'ledgerOnly'],
    ['absent', 'completed', 'ledgerOnly'],
    ['imported', 'open', 'inFlight'],
    ['imported', 'ended', 'platformOnly'],
    ['imported', 'absent', 'platformOnly'],
    ['pending', 'ended', 'platformOnly'],
    ['pending', 'absent', 'platformOnly'],
    ['absent', 'open', undefined],
    ['absent', 'ended', undefined],
    ['absent', 'absent', undefined],
  ] as const)('tenant %s, ledger %s: %s', (tenant, ledger, expected) => {
    expect(censusClass(facts(tenant, ledger, NOW - 10 * HOUR), NOW, HOUR)).toBe(expected);
  });

  it('pending for an open attempt: stuck only past the threshold, measured from the schedule call', () => {
    expect(censusClass(facts('pending', 'open', NOW - HOUR - 1), NOW, HOUR)).toBe('stuckPending');
    expect(censusClass(facts('pending', 'open', NOW - HOUR), NOW, HOUR)).toBe('inFlight');
    expect(censusClass(facts('pending', 'open', NOW - 1), NOW, HOUR)).toBe('inFlight');
    // Never scheduled by us (its age is unknown): not called stuck.
    expect(censusClass(facts('pending', 'open', null), NOW, 0)).toBe('inFlight');
  });
});

describe('ledgerHolds', () => {
  it('completed over open over ended; nothing attempted is absent', () => {
    expect(ledgerHolds({ completed: true, open: true, attempted: true })).toBe('completed');
    expect(ledgerHolds({ completed: false, open: true, attempted: true })).toBe('open');
    expect(ledgerHolds({ completed: false, open: false, attempted: true })).toBe('ended');
    expect(ledgerHolds({ completed: false, open: false, attempted: false })).toBe('absent');
  });
});

describe('countCensus', () => {
  it('counts the lists, the ledger and each class, and returns the class', () => {
    const counts = emptyCensusCounts();
    const seen = [
      facts('imported', 'completed'),
      facts('imported', 'completed'),
      facts('imported', 'absent'),
      facts('pending', 'open', NOW - 2 * HOUR),
      facts('pending', 'open', NOW),
      facts('absent', 'completed'),
      facts('absent', 'ended'),
      facts('imported', 'open'),
      facts('pending', 'absent'),
    ].map((f) => countCensus(counts, f, NOW, HOUR));
    expect(seen).toEqual(['matched', 'matched', 'platformOnly', 'stuckPending', 'inFlight', 'ledgerOnly', undefined, 'inFlight', 'platformOnly']);
    expect(counts).toEqual({
      tenantImported: 4,
      tenantPending: 3,
      ledgerCompleted: 3,
      matched: 2,
      inFlight: 2,
      platformOnly: 2,
      ledgerOnly: 1,
      stuckPending: 1,
    });
  });
});

describe('censusGateMet', () => {
  it('met at exactly the maximum, not one past it; no maximum is always met', () => {
    const none = { platformOnly: null, ledgerOnly: null };
    expect(censusGateMet({ platformOnly: 5, ledgerOnly: 5 }, none)).toBe(true);
    expect(censusGateMet({ platformOnly: 0, ledgerOnly: 9 }, { platformOnly: 0, ledgerOnly: null })).toBe(true);
    expect(censusGateMet({ platformOnly: 1, ledgerOnly: 0 }, { platformOnly: 0, ledgerOnly: null })).toBe(false);
    expect(censusGateMet({ platformOnly: 0, ledgerOnly: 2 }, { platformOnly: null, ledgerOnly: 2 })).toBe(true);
    expect(censusGateMet({ platformOnly: 0, ledgerOnly: 3 }, { platformOnly: null, ledgerOnly: 2 })).toBe(false);
  });
});
