import { describe, expect, it } from 'vitest';
import { purgeRefusal } from '../../../ledger/purge';

/** Which runs `db purge` refuses, by status (the SQL that clears a run is proven on Postgres in purge.test.ts). */

describe('db purge refuses', () => {
  it('a run still going or of a status it does not know, and one not in the ledger, by code; a finished run may go', () => {
    for (const status of ['completed', 'cancelled', 'failed']) expect(purgeRefusal('r1', status), status).toBeUndefined();
    for (const status of ['running', 'paused', 'registered', 'Completed', ''])
      expect(purgeRefusal('r1', status), status).toMatchObject({
        name: 'PurgeRefused',
        code: 'run_in_progress',
        message: `run r1 is ${status}: its workflows still read their payloads; cancel it or let it finish first`,
      });
    expect(purgeRefusal('r2', undefined)).toMatchObject({ code: 'run_not_found', message: 'no run r2 in the ledger' });
  });
});
