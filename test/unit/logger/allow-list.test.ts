import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { realisticAccount } from '../../../schemas/fixtures';
import { personalValues } from '../../../schemas/bounded-output';
import { createLogger, createTemporalLogger, logPlatformError, REDACTED, SAFE_LOG_FIELDS } from '../../../logging/logger';

/**
 * Log redaction by allow-list: a payload full of personal values sent down every logging path the
 * code has (fields, nested objects, errors with detail/body/cause, the platform-error helper, the
 * Temporal SDK logger, a child logger), at debug level; none of its values comes out.
 */

const ROOT = path.resolve(__dirname, '../../..');

function memory(level = 'debug') {
  const lines: string[] = [];
  const logger = createLogger('allow-list', { level, destination: { write: (s: string) => void lines.push(s) } });
  return { logger, raw: () => lines.join(''), records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('log redaction by allow-list', () => {
  const account = realisticAccount({ external_account_number: 'ALLOW-1' });
  const personal = personalValues(account).filter((v) => v.length >= 4);

  it('lets no personal value of a payload through any logging path, at debug level', () => {
    expect(personal.length).toBeGreaterThan(8); // names, birth date, phones, e-mail, addresses
    const { logger, raw } = memory('debug');
    const customer = account.customers![0] as Record<string, unknown>;
    const pgError = Object.assign(new Error('duplicate key value violates unique constraint "x"'), {
      code: '23505',
      detail: `Key (request)=(${JSON.stringify(account)}) already exists.`,
      where: JSON.stringify(customer),
      parameters: [JSON.stringify(account)],
      body: account,
      response: { data: account },
    });
    const wrapped = new Error('record step failed', { cause: pgError });
    logger.info({ payload: account }, 'whole payload');
    logger.info({ account, customer, customers: account.customers }, 'account under an allowed field and under others');
    logger.info({ ...customer }, 'spread at the top level');
    logger.warn(
      { code: 'x', errors: [{ code: 'invalid_phone_number', attr: 'customers.0.mobile', detail: customer.mobile, value: customer.mobile }] },
      'field errors',
    );
    logger.error({ err: pgError }, 'insert failed');
    logger.error({ err: wrapped, error: pgError }, 'wrapped');
    logger.error(pgError, 'error as the first argument');
    logger.child({ component: 'codec' }).warn({ comment: customer.given_name, detail: customer.email, rows: [customer] }, 'child');
    logger.info({ unknownNewField: customer.family_name, nested: { deeper: { dob: customer.date_of_birth } } }, 'fields nobody listed');
    logPlatformError(logger, {
      code: 'account_failed_validation',
      detail: `Invalid: ${String(customer.email)}`,
      errors: [{ code: 'blank', attr: 'customers.0.email', detail: String(customer.email) }],
    });
    const temporal = createTemporalLogger(logger);
    temporal.warn('Activity failed', {
      workflowId: 'wf-1',
      input: account,
      error: ApplicationFailure.nonRetryable('validation failed', 'ValidationError', account),
    });
    temporal.info('Workflow started', { workflowId: 'wf-1', args: [account] });

    const text = raw();
    for (const value of personal) expect(text, value).not.toContain(value);
    // Identifiers, codes and the error's own message stay.
    expect(text).toContain('23505');
    expect(text).toContain('customers.0.mobile');
    expect(text).toContain('duplicate key value violates unique constraint');
    expect(text).toContain('wf-1');
  });

  it('keeps an error by its allowed fields only (never detail, where, parameters, body), its cause as well', () => {
    const { logger, records } = memory();
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
      errno: -111,
      syscall: 'connect',
      detail: 'secret row',
    });
    logger.error({ err: Object.assign(new Error('ledger write failed', { cause }), { status: 503, detail: 'row', where: 'w', parameters: ['p'] }) }, 'x');
    const [r] = records();
    expect(r.err).toEqual({
      type: 'Error',
      message: 'ledger write failed',
      stack: expect.stringContaining('ledger write failed'),
      status: 503,
      cause: {
        type: 'Error',
        message: 'connect ECONNREFUSED 127.0.0.1:5432',
        stack: expect.any(String),
        code: 'ECONNREFUSED',
        errno: -111,
        syscall: 'connect',
      },
    });
  });

  it('shows a field it does not know as redacted, keeps numbers and flags (counts quote no one)', () => {
    const { logger, records } = memory();
    logger.info({ runId: 'run-1', mystery: 'Zofia', total: 12, dryRun: true, rejected: { signature_mismatch: 3 } }, 'x');
    expect(records()[0]).toMatchObject({ runId: 'run-1', mystery: REDACTED, total: 12, dryRun: true, rejected: { signature_mismatch: 3 } });
  });

  it('lists every field the code logs (a new field is added here on purpose, or it shows as redacted)', () => {
    // pino's `logger.info({…}, msg)` and the Temporal SDK's `log.warn(msg, {…})` (a literal or a name first).
    const call = /\b(?:logger|log)\s*\.\s*(?:trace|debug|info|warn|error|fatal)\s*\(\s*(?:(?:'[^'\n]*'|"[^"\n]*"|`[^`]*`|[\w.$]+)\s*,\s*)?\{/g;
    const found = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (!['node_modules', 'test', '.git', '.data', 'reports'].includes(e.name)) walk(p);
        } else if (e.name.endsWith('.ts')) {
          const text = fs.readFileSync(p, 'utf8');
          for (const m of text.matchAll(call)) {
            // The object literal's own keys (depth 1).
            let depth = 0;
            let key = '';
            let expectKey = true;
            for (let i = m.index + m[0].length - 1; i < text.length; i++) {
              const c = text[i];
              if ('{[('.includes(c)) {
                depth++;
                continue;
              }
              if ('}])'.includes(c)) {
                if (--depth === 0) break;
                continue;
              }
              if (depth !== 1) continue;
              if (c === ',') expectKey = true;
              else if (expectKey && /[\w$'"-]/.test(c)) key += c;
              else if (expectKey && key !== '' && /[:\s,]/.test(c)) {
                if (!key.startsWith('...')) found.add(key.replace(/['"]/g, ''));
                key = '';
                expectKey = false;
              } else if (expectKey && c === '.') key += c;
            }
          }
        }
      }
    };
    walk(ROOT);
    expect(found.size).toBeGreaterThan(30);
    // `detail`: the platform's prose quotes the rejected value; logged on purpose and shown redacted.
    const redactedOnPurpose = new Set(['detail']);
    expect([...found].filter((k) => !SAFE_LOG_FIELDS.has(k) && !redactedOnPurpose.has(k)).sort()).toEqual([]);
  });
});
