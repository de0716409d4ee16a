import { describe, expect, it } from 'vitest';
import { importEventSignalOf, importEventSignalSchema } from '../../../domain/inputs';

// The router's signal and the inbox claim (activities/outcome.ts, activities/post-import.ts) go
// through this one mapping: a waiting workflow sees the same value whichever path delivered it.
describe('importEventSignalOf', () => {
  it('carries the event id, type, account number, error code and item kind of the inbox row', () => {
    const s = importEventSignalOf({
      eventId: 'ev-1',
      eventType: 'data_import.import_process.post_import.error',
      identifier: 'A-1',
      errorCode: 'note_too_long',
      resourceType: 'NOTE',
    });
    expect(s).toEqual({
      eventId: 'ev-1',
      type: 'data_import.import_process.post_import.error',
      identifier: 'A-1',
      errorCode: 'note_too_long',
      resourceType: 'NOTE',
    });
  });

  it('leaves out what the row lacks (null or empty), so the signal passes its own schema', () => {
    const s = importEventSignalOf({ eventId: 'ev-2', eventType: 'data_import.import_process.complete', identifier: null, errorCode: '', resourceType: null });
    expect(s).toEqual({ eventId: 'ev-2', type: 'data_import.import_process.complete' });
    expect(importEventSignalSchema.safeParse(s).success).toBe(true);
  });
});
