import { describe, expect, it } from 'vitest';
import type pino from 'pino';
import { ApplicationFailure } from '@temporalio/common';
import { createLogger, createTemporalLogger, logPlatformError, REDACTED } from '../../../logging/logger';

function memoryLogger(level = 'info'): { logger: pino.Logger; records: () => Array<Record<string, unknown>>; raw: () => string } {
  const lines: string[] = [];
  const destination = { write: (s: string) => void lines.push(s) };
  const logger = createLogger('test', { level, destination });
  return {
    logger,
    raw: () => lines.join(''),
    records: () =>
      lines
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('createLogger redaction', () => {
  it('redacts credentials wherever they sit', () => {
    const { logger, records, raw } = memoryLogger();
    logger.info(
      {
        authorization: 'Token abc-KEY-1',
        req: { headers: { authorization: 'Bearer jwt-SECRET-2', Authorization: 'Bearer jwt-SECRET-3' } },
        auth: { token: 'tok-SECRET-4', refreshToken: 'ref-SECRET-5', apiKey: 'api-SECRET-6' },
        input: { organizationSecretKey: 'org-SECRET-7', password: 'pw-SECRET-8', secret: 'sec-SECRET-9' },
        cfg: { DATABASE_URL: 'postgres://u:SECRET-10@db/x' },
      },
      'calling platform',
    );
    expect(raw()).not.toMatch(/SECRET|KEY-1/);
    const [r] = records();
    expect(r.authorization).toBe(REDACTED);
    // `req` is no field the code logs: redacted whole (allow-list); `auth` is one, its secrets still censored.
    expect(r.req).toBe(REDACTED);
    expect(r.auth).toEqual({ token: REDACTED, refreshToken: REDACTED, apiKey: REDACTED });
    expect(r.msg).toBe('calling platform');
  });

  it('redacts an x-api-key header and secret keys at any depth, and drops the detail of an error (it can quote a row)', () => {
    const { logger, raw, records } = memoryLogger();
    logger.info({ req: { headers: { 'x-api-key': 'hdr-SECRET-1', 'X-Api-Key': 'hdr-SECRET-2' } }, a: { b: { c: { d: { apiKey: 'deep-SECRET-3' } } } } }, 'in');
    const pgError = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
      detail: 'Key (email)=(jane.doe@example.com) already exists.',
      where: 'SQL statement',
    });
    logger.error({ err: pgError }, 'insert failed');
    expect(raw()).not.toMatch(/SECRET|jane\.doe/);
    const [headers, failed] = records();
    expect(headers.req).toBe(REDACTED);
    expect((failed.err as Record<string, unknown>).code).toBe('23505');
    expect(failed.err).not.toHaveProperty('detail');
  });

  it('masks passwords inside connection strings, in fields, messages and errors', () => {
    const { logger, raw, records } = memoryLogger();
    const url = 'postgresql://kraken:hunter2-SECRET@127.0.0.1:5432/ledger';
    const original = { target: { url } };
    logger.info(original, `connecting to ${url}`);
    logger.error({ err: new Error(`connect failed: ${url}`) }, 'db down');
    expect(raw()).not.toContain('hunter2');
    expect(raw()).toContain(`postgresql://kraken:${REDACTED}@127.0.0.1:5432/ledger`);
    expect((records()[1].err as { message: string }).message).toBe(`connect failed: postgresql://kraken:${REDACTED}@127.0.0.1:5432/ledger`);
    // The caller's object is not mutated.
    expect(original.target.url).toBe(url);
  });

  it('redacts personal fields at the top level and one or two levels deep', () => {
    const { logger, records, raw } = memoryLogger();
    const person = {
      given_name: 'Zofia',
      family_name: 'Jabłońska',
      email: 'zofia@example.com',
      mobile: '07123456789',
      landline: '02071234567',
      phone: '+447123456789',
      date_of_birth: '1980-02-03',
      billing_name: 'Z Jabłońska',
      billing_address1: '1 Acacia Ave',
      billing_address5: 'Leeds',
      supply_address1: '2 Acacia Ave',
      supply_address3: 'LS1 1AA',
    };
    logger.info({ ...person, account: { ...person, customer: { ...person } }, customers: [person] }, 'customer');
    const text = raw();
    for (const value of Object.values(person)) expect(text).not.toContain(value);
    const [r] = records();
    expect(r.email).toBe(REDACTED);
    expect((r.account as Record<string, unknown>).supply_address3).toBe(REDACTED);
    expect((r.account as Record<string, unknown>).customer).toBe(REDACTED);
    expect(r.customers).toBe(REDACTED);
  });

  it('censors a whole account payload', () => {
    const { logger, records } = memoryLogger();
    logger.info({ externalId: 'LEG-1', payload: { account_number: 'X', notes: ['private'] }, request: { payload: { a: 1 } } }, 'scheduled');
    const [r] = records();
    expect(r.payload).toBe(REDACTED);
    expect(r.request).toBe(REDACTED);
    expect(r.externalId).toBe('LEG-1');
  });
});

describe('logPlatformError', () => {
  const platformError = Object.assign(new Error('platform rejected the account'), {
    status: 400,
    body: {
      code: 'account_failed_validation',
      detail: 'Validation failed',
      errors: [
        { code: 'invalid_phone_number', attr: 'customers.0.landline', detail: 'Enter a valid phone number (got 0712 345 XYZ)' },
        { code: 'blank', attr: 'customers.0.given_name', detail: 'This field may not be blank.' },
      ],
    },
  });

  it('logs code and attr at info level, never detail', () => {
    const { logger, records, raw } = memoryLogger('info');
    logPlatformError(logger, platformError);
    const recs = records();
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({
      level: 40,
      code: 'account_failed_validation',
      status: 400,
      errors: [
        { code: 'invalid_phone_number', attr: 'customers.0.landline' },
        { code: 'blank', attr: 'customers.0.given_name' },
      ],
    });
    expect(raw()).not.toContain('0712 345 XYZ');
    expect(raw()).not.toContain('detail');
  });

  it('keeps the detail prose out even at debug level (it quotes the rejected value): codes and attrs only', () => {
    const { logger, records, raw } = memoryLogger('debug');
    logPlatformError(logger, platformError);
    const recs = records();
    expect(recs).toHaveLength(2);
    expect(recs[1]).toMatchObject({
      level: 20,
      detail: REDACTED,
      errors: [{ code: 'invalid_phone_number', attr: 'customers.0.landline', detail: REDACTED }, {}],
    });
    expect(raw()).not.toContain('0712 345 XYZ');
  });

  it('reads a bare platform body and falls back to the error code for other errors', () => {
    const { logger, records, raw } = memoryLogger('info');
    logPlatformError(logger, { code: 'import_supplier_migration_not_ongoing', detail: 'Supplier X is paused' });
    logPlatformError(logger, Object.assign(new Error('socket hang up for zofia@example.com'), { code: 'ECONNRESET' }));
    const recs = records();
    expect(recs[0]).toMatchObject({ code: 'import_supplier_migration_not_ongoing' });
    expect(recs[1]).toMatchObject({ code: 'ECONNRESET', errName: 'Error' });
    expect(raw()).not.toContain('zofia@example.com');
    expect(raw()).not.toContain('Supplier X');
  });
});

describe('createTemporalLogger', () => {
  it('keeps the failure type but not the message of a logged workflow error', () => {
    const { logger, records, raw } = memoryLogger('info');
    const failure = ApplicationFailure.nonRetryable('invalid landline for Jabłoński 07123456789', 'ValidationError');
    createTemporalLogger(logger).warn('Workflow failed', { workflowId: 'wf-1', error: failure });
    expect(records()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'Workflow failed',
        workflowId: 'wf-1',
        error: { errName: 'ApplicationFailure', failureType: 'ValidationError' },
      }),
    ]);
    expect(raw()).not.toContain('07123456789');
  });
});
