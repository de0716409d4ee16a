import type { EnergyAccount } from '../../schemas/account';
import { validateAccount } from '../../schemas/validate';
import type { PlatformAuth } from './auth';
import type { PlatformClient } from './client';
import { PlatformClientError } from './errors';

/**
 * `kraken-migrate platform check`: four read-only steps against whatever `PLATFORM_*` points at
 * (the sandbox or a tenant). Nothing is created: the payload only goes to the validate endpoint,
 * and the import status is read for an identifier no import uses.
 */
export const CHECK_STEPS = ['token', 'catalogue', 'validate', 'import_status'] as const;
export type CheckStepName = (typeof CHECK_STEPS)[number];

export interface CheckStep {
  step: CheckStepName;
  ok: boolean;
  /** The HTTP status the step ended on (undefined when no answer came: network, timeout, config). */
  status?: number;
  reason: string;
}

export interface CheckResult {
  ok: boolean;
  steps: CheckStep[];
}

/** A payload generated for the check: valid locally, no supply points (so no tenant tariff is assumed). */
export function checkPayload(supplierCode: string, externalAccountNumber: string): EnergyAccount {
  const payload = {
    import_supplier: supplierCode,
    external_account_number: externalAccountNumber,
    account_type: 'DOMESTIC',
    billing_name: 'Platform Check',
    billing_address1: '1 Check Street',
    billing_postcode: 'W1F 9DE',
    customers: [{ given_name: 'Platform', family_name: 'Check', email: 'platform-check@example.com' }],
  };
  const v = validateAccount(payload);
  if (!v.ok) throw new Error(`the check payload is invalid locally: ${v.errors.map((e) => `${e.attr} ${e.code}`).join(', ')}`);
  return v.value;
}

function failed(step: CheckStepName, e: unknown): CheckStep {
  if (e instanceof PlatformClientError) return { step, ok: false, status: e.status, reason: e.message };
  return { step, ok: false, reason: e instanceof Error ? e.message : String(e) };
}

export interface CheckDeps {
  client: Pick<PlatformClient, 'listProducts' | 'validateAccount' | 'getImportStatus'>;
  auth: PlatformAuth;
  authMode: 'jwt' | 'token';
  supplierCode: string;
  /** Suffix of the identifiers the check uses (defaults to a random one). */
  nonce?: string;
}

export async function runPlatformCheck(deps: CheckDeps): Promise<CheckResult> {
  const nonce = deps.nonce ?? Math.random().toString(36).slice(2, 10).toUpperCase();
  const steps: CheckStep[] = [];
  const step = async (name: CheckStepName, fn: () => Promise<Omit<CheckStep, 'step'>>) => {
    try {
      steps.push({ step: name, ...(await fn()) });
    } catch (e) {
      steps.push(failed(name, e));
    }
  };

  await step('token', async () => {
    await deps.auth.header();
    return deps.authMode === 'jwt'
      ? { ok: true, status: 200, reason: 'obtainKrakenToken issued a token' }
      : { ok: true, reason: 'data-import key configured (token mode: nothing to obtain)' };
  });

  await step('catalogue', async () => {
    let first: string | undefined;
    for await (const p of deps.client.listProducts()) {
      first = p.code;
      break; // the first page is enough
    }
    return { ok: true, status: 200, reason: first ? `first product ${first}` : 'the catalogue lists no products' };
  });

  await step('validate', async () => {
    const r = await deps.client.validateAccount(checkPayload(deps.supplierCode, `KRAKEN-MIGRATE-CHECK-${nonce}`));
    if (r.ok) return { ok: true, status: 200, reason: 'generated payload valid (nothing created)' };
    return { ok: false, status: 400, reason: r.errors.map((e) => `${e.code} at ${e.attr}`).join('; ') };
  });

  await step('import_status', async () => {
    const s = await deps.client.getImportStatus(deps.supplierCode, `KRAKEN-MIGRATE-CHECK-${nonce}`);
    return s ? { ok: true, status: 200, reason: `status ${s.status}` } : { ok: true, status: 404, reason: 'no such import (404 is a pass)' };
  });

  return { ok: steps.every((s) => s.ok), steps };
}
