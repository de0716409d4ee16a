import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export type JsonSchemaObject = Record<string, unknown>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchemaObject> };
}

const SPEC_FILE = 'kraken-data-import-openapi.yml';

export function specCandidates(explicit?: string, cwd = process.cwd()): string[] {
  if (explicit) return [path.resolve(cwd, explicit)];
  // shared/ sits beside the repository (the project's layout): from the cwd, then from this file.
  return [path.resolve(cwd, '../shared/reference', SPEC_FILE), path.resolve(__dirname, '../../../shared/reference', SPEC_FILE)];
}

export class SpecNotFoundError extends Error {
  readonly code = 'sandbox_spec_not_found';
  constructor(tried: string[]) {
    super(`the reference OpenAPI document was not found (tried ${tried.join(', ')}); set the sandbox specPath option`);
  }
}

export function resolveSpecPath(explicit?: string, cwd = process.cwd()): string {
  const tried = specCandidates(explicit, cwd);
  const found = tried.find((p) => fs.existsSync(p));
  if (!found) throw new SpecNotFoundError(tried);
  return found;
}

/**
 * The document was written by PyYAML, whose YAML 1.1 resolver reads `07123456789` or `0393` as
 * strings (not octal, not decimal) and so leaves them unquoted. A YAML 1.2 parser would turn them
 * into numbers; this int tag follows PyYAML so examples and enums keep their leading zeros.
 */
const pyYamlInt = {
  identify: (v: unknown) => typeof v === 'number' && Number.isInteger(v),
  default: true,
  tag: 'tag:yaml.org,2002:int',
  test: /^[-+]?(?:0|[1-9][0-9_]*)$/,
  resolve: (s: string) => Number(s.replace(/_/g, '')),
};

export function parsePyYaml(text: string): unknown {
  return YAML.parse(text, {
    customTags: (tags) => [...tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:int'), pyYamlInt],
    maxAliasCount: -1,
  });
}

export function parseSpec(text: string): OpenApiDocument {
  const doc = parsePyYaml(text) as OpenApiDocument;
  if (!doc?.components?.schemas) throw new Error('the OpenAPI document has no components.schemas');
  return doc;
}

export function loadSpec(specPath: string): OpenApiDocument {
  return parseSpec(fs.readFileSync(specPath, 'utf8'));
}

/** A named request-body example of an operation, e.g. `ExamplePayload` of `POST /v2/data-import/accounts/`. */
export function requestExample(doc: OpenApiDocument, route: string, method: string, name: string): unknown {
  const op = doc.paths[route]?.[method] as
    | { requestBody?: { content?: Record<string, { examples?: Record<string, { value?: unknown }> }> } }
    | undefined;
  const value = op?.requestBody?.content?.['application/json']?.examples?.[name]?.value;
  if (value === undefined) throw new Error(`no example ${name} for ${method.toUpperCase()} ${route}`);
  return structuredClone(value);
}
