import { createHash } from 'node:crypto';
import YAML from 'yaml';

/**
 * Derives the repository's contract file from the tenant's OpenAPI document. Pure: text in, object out.
 * Only `scripts/contract-update.ts` calls it with the reference document; nothing at run time does.
 */

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

/** Prose keys dropped where they hold a string; a schema property of the same name is an object and stays. */
const PROSE_KEYS = new Set(['description', 'summary', 'externalDocs']);
/** Data, not documentation: an example payload's own `description` field must survive. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum']);

function stripProse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripProse);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (PROSE_KEYS.has(k) && (typeof v === 'string' || k === 'externalDocs')) continue;
    out[k] = DATA_KEYS.has(k) ? v : stripProse(v);
  }
  return out;
}

export interface ContractProvenance {
  source: string;
  sourceSha256: string;
  sourceTitle: string;
  sourceVersion: string;
  derivedOn: string;
  derivedBy: string;
}

export interface DerivedContract {
  'x-provenance': ContractProvenance;
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> };
}

export function deriveContract(text: string, meta: { source: string; derivedOn: string }): DerivedContract {
  const doc = parsePyYaml(text) as {
    openapi?: string;
    info?: { title?: string; version?: string };
    paths?: Record<string, Record<string, unknown>>;
    components?: { schemas?: Record<string, Record<string, unknown>>; securitySchemes?: Record<string, unknown> };
  };
  if (!doc?.components?.schemas || !doc.paths) throw new Error('the OpenAPI document has no paths or components.schemas');
  return {
    'x-provenance': {
      source: meta.source,
      sourceSha256: createHash('sha256').update(text).digest('hex'),
      sourceTitle: doc.info?.title ?? '',
      sourceVersion: doc.info?.version ?? '',
      derivedOn: meta.derivedOn,
      derivedBy: 'npm run contract:update (scripts/contract-update.ts)',
    },
    openapi: doc.openapi ?? '3.0.0',
    paths: stripProse(doc.paths) as DerivedContract['paths'],
    components: {
      schemas: stripProse(doc.components.schemas) as DerivedContract['components']['schemas'],
      // Kept whole: these descriptions state rules (the `Token ` prefix), not prose.
      securitySchemes: doc.components.securitySchemes ?? {},
    },
  };
}
