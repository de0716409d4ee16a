import fs from 'node:fs';
import path from 'node:path';
import type { DerivedContract } from './derive';

/**
 * The tenant's data-import contract, derived into the repository (see contract/README.md).
 * Run time and tests read only this file.
 */
export const CONTRACT_FILE = 'contract/data-import.contract.json';

export type JsonSchemaObject = Record<string, unknown>;
export type Contract = DerivedContract;

let cached: Contract | undefined;

/** Parsed once per process; callers that change it must clone first (see `requestExample`). */
export function loadContract(): Contract {
  cached ??= JSON.parse(fs.readFileSync(path.join(__dirname, 'data-import.contract.json'), 'utf8')) as Contract;
  return cached;
}

/** A named request-body example of an operation, e.g. `ExamplePayload` of `POST /v2/data-import/accounts/`. */
export function requestExample(route: string, method: string, name = 'ExamplePayload', doc: Contract = loadContract()): unknown {
  const op = doc.paths[route]?.[method] as { requestBody?: { content?: Record<string, { examples?: Record<string, { value?: unknown }> }> } } | undefined;
  const value = op?.requestBody?.content?.['application/json']?.examples?.[name]?.value;
  if (value === undefined) throw new Error(`no example ${name} for ${method.toUpperCase()} ${route}`);
  return structuredClone(value);
}
