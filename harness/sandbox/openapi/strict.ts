import { buildSchema, parse, validate, type GraphQLSchema } from 'graphql';
import { prunedSchemaSdl } from '../../../contract/graphql';
import type { JsonSchemaObject, OpenApiDocument } from './spec';
import type { SpecValidator } from './validator';

/**
 * Strict mode: every request is checked against the contract before the sandbox answers it — path
 * and method, query parameters, the form of the `Authorization` header, and the body against its
 * schema with no property the schema does not declare, anywhere. The data-import routes come from
 * the OpenAPI document; the public catalogue, the account endpoint and the token mutation from
 * the API reference (sandbox/README.md) and the auth GraphQL types (they are not in the OpenAPI document). A violation is
 * answered 4xx and recorded (`GET /admin/violations`).
 */

export type ViolationKind = 'path' | 'method' | 'query' | 'auth' | 'body';

export interface Violation {
  at: string;
  method: string;
  path: string;
  kind: ViolationKind;
  detail: string;
}

type AuthForm = 'token' | 'rest' | 'none' | 'graphql';

interface Route {
  method: string;
  re: RegExp;
  template: string;
  auth: AuthForm;
  query: string[];
  /** Component schema of a JSON body (OpenAPI routes), or the token mutation. */
  body?: { schema: string } | { graphql: true };
}

/**
 * Properties the contract's schemas do not declare that the sandbox still accepts, each a listed
 * assumption (sandbox/README.md): `EnergyAccount.ledgers` is used by the spec's own example, its
 * validators and its `x-use-instead: ledgers.*` notes.
 */
export const STRICT_ALLOWED_UNDECLARED: Record<string, string[]> = { EnergyAccount: ['ledgers'] };

/** `ObtainJSONWebTokenInput` and `ObtainKrakenJSONWebToken` (kraken-auth.graphql). */
const TOKEN_INPUT_FIELDS = ['APIKey', 'organizationSecretKey', 'preSignedKey', 'refreshToken', 'captchaResponse'];
const TOKEN_RESULT_FIELDS = ['token', 'payload', 'refreshToken', 'refreshExpiresIn', 'possibleErrors'];

const segment = '[^/]+';
function templateRe(template: string): RegExp {
  const escaped = template
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{[^}]+\\?\}/g, segment)
    .replace(/\{[^}]+\}/g, segment);
  return new RegExp(`^${escaped}$`);
}

/** Document 1's endpoints (relative to /v1/), plus the token endpoint. */
const DOCUMENT_ONE_ROUTES: Route[] = [
  // `products` (a trailing slash also works): brand, is_green, is_prepay; page/page_size are the list envelope's paging.
  { method: 'GET', template: '/v1/products/', re: /^\/v1\/products\/?$/, auth: 'none', query: ['brand', 'is_green', 'is_prepay', 'page', 'page_size'] },
  { method: 'GET', template: '/v1/products/<product_code>/', re: /^\/v1\/products\/[^/]+\/$/, auth: 'none', query: [] },
  {
    method: 'GET',
    template: '/v1/products/<product_code>/electricity-tariffs/<tariff_code>/standard-unit-rates/',
    re: /^\/v1\/products\/[^/]+\/electricity-tariffs\/[^/]+\/standard-unit-rates\/$/,
    auth: 'none',
    query: ['period_from', 'period_to', 'page', 'page_size'],
  },
  { method: 'GET', template: '/v1/accounts/<account_number>/', re: /^\/v1\/accounts\/[^/]+\/$/, auth: 'rest', query: [] },
  { method: 'POST', template: '/v1/graphql/', re: /^\/v1\/graphql\/$/, auth: 'graphql', query: [], body: { graphql: true } },
];

function refName(ref: unknown): string | undefined {
  return typeof ref === 'string' ? ref.split('/').pop() : undefined;
}

function openApiRoutes(doc: OpenApiDocument): Route[] {
  const out: Route[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(ops)) {
      const op = raw as {
        security?: unknown[];
        parameters?: Array<{ in?: string; name?: string }>;
        requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> };
      };
      if (typeof op !== 'object' || op === null || !['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const schema = refName(op.requestBody?.content?.['application/json']?.schema?.$ref);
      out.push({
        method: method.toUpperCase(),
        template,
        re: templateRe(template),
        auth: op.security && op.security.length > 0 ? 'token' : 'none',
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => String(p.name)),
        ...(schema ? { body: { schema } } : {}),
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Undeclared properties

type Schemas = Record<string, JsonSchemaObject>;

function resolve(schemas: Schemas, s: unknown): JsonSchemaObject | undefined {
  if (typeof s !== 'object' || s === null) return undefined;
  const o = s as JsonSchemaObject;
  const ref = refName(o.$ref);
  return ref ? schemas[ref] : o;
}

interface Shape {
  /** undefined: free-form (no declared properties), any key goes. */
  props?: Map<string, unknown[]>;
  items: unknown[];
  names: string[];
}

/** What one schema node declares for an object / array value, through $ref, allOf/oneOf/anyOf and discriminators. */
function shapeOf(schemas: Schemas, node: unknown, data: unknown, seen = new Set<unknown>()): Shape {
  const s = resolve(schemas, node);
  const shape: Shape = { items: [], names: [] };
  if (!s || seen.has(s)) return shape;
  seen.add(s);
  const ref = refName((node as JsonSchemaObject | undefined)?.$ref);
  if (ref) shape.names.push(ref);
  const merge = (other: Shape) => {
    if (other.props) {
      shape.props ??= new Map();
      for (const [k, v] of other.props) shape.props.set(k, [...(shape.props.get(k) ?? []), ...v]);
    }
    shape.items.push(...other.items);
    shape.names.push(...other.names);
  };
  if (s.properties && typeof s.properties === 'object') {
    shape.props ??= new Map();
    for (const [k, v] of Object.entries(s.properties as Record<string, unknown>)) shape.props.set(k, [...(shape.props.get(k) ?? []), v]);
  }
  if (s.items) shape.items.push(s.items);
  // A discriminated union: only the branch the data selects.
  const disc = s.discriminator as { propertyName?: string; mapping?: Record<string, string> } | undefined;
  const branches = ([] as unknown[]).concat((s.allOf as unknown[]) ?? [], (s.oneOf as unknown[]) ?? [], (s.anyOf as unknown[]) ?? []);
  if (disc?.propertyName && disc.mapping && typeof data === 'object' && data !== null) {
    // The tag itself is declared by the discriminator, even where no branch lists it (`Business`);
    // an absent tag selects the "" branch where there is one (to-json-schema.ts, assumption 26).
    shape.props ??= new Map();
    if (!shape.props.has(disc.propertyName)) shape.props.set(disc.propertyName, [{}]);
    const tag = (data as Record<string, unknown>)[disc.propertyName];
    const chosen = disc.mapping[tag === undefined && '' in disc.mapping ? '' : String(tag)];
    if (chosen) {
      merge(shapeOf(schemas, { $ref: chosen }, data, seen));
      for (const b of (s.allOf as unknown[]) ?? []) merge(shapeOf(schemas, b, data, seen));
      return shape;
    }
  }
  for (const b of branches) merge(shapeOf(schemas, b, data, seen));
  return shape;
}

/** Dot paths of every property in `data` that `schemaName` does not declare (at any depth). */
export function undeclaredProperties(
  schemas: Schemas,
  schemaName: string,
  data: unknown,
  allowed: Record<string, string[]> = STRICT_ALLOWED_UNDECLARED,
): string[] {
  const out: string[] = [];
  const walk = (value: unknown, nodes: unknown[], path: string[]) => {
    if (nodes.length === 0 || value === null || typeof value !== 'object') return;
    const shapes = nodes.map((n) => shapeOf(schemas, n, value));
    if (Array.isArray(value)) {
      const items = shapes.flatMap((s) => s.items);
      value.forEach((v, i) => walk(v, items, [...path, String(i)]));
      return;
    }
    const declared = shapes.filter((s) => s.props);
    if (declared.length === 0) return; // free-form object (e.g. metadata values)
    const props = new Map<string, unknown[]>();
    for (const s of declared) for (const [k, v] of s.props!) props.set(k, [...(props.get(k) ?? []), ...v]);
    const allow = new Set(shapes.flatMap((s) => s.names).flatMap((n) => allowed[n] ?? []));
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (props.has(k)) walk(v, props.get(k)!, [...path, k]);
      else if (!allow.has(k)) out.push([...path, k].join('.'));
    }
  };
  walk(data, [{ $ref: `#/components/schemas/${schemaName}` }], []);
  return out;
}

// ---------------------------------------------------------------------------------------------

function checkAuthForm(form: AuthForm, header: string | undefined): string | undefined {
  const h = header ?? '';
  if (form === 'none') return header === undefined ? undefined : 'this endpoint takes no credentials (the API reference: public product and tariff data)';
  // The token mutation goes without credentials; a query carries the token itself, no scheme word (tenant's API basics guide).
  if (form === 'graphql')
    return header === undefined || /^[^\s]+$/.test(h) ? undefined : 'GraphQL takes "Authorization: <token>" (the token itself, no scheme word)';
  if (form === 'token') return /^Token \S+$/.test(h) ? undefined : 'data-import endpoints take "Authorization: Token <ACCESS_TOKEN>" only';
  return /^(Token|Basic) \S+$/.test(h) ? undefined : 'ordinary REST endpoints take "Token <token>" or HTTP Basic';
}

let pruned: GraphQLSchema | undefined;
const prunedSchema = () => (pruned ??= buildSchema(prunedSchemaSdl()));

function checkGraphql(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['body must be {query, variables}'];
  const b = body as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(b)) if (!['query', 'variables', 'operationName'].includes(k)) problems.push(`undeclared body property ${k}`);
  if (typeof b.query !== 'string') return [...problems, 'query must be a string'];
  if (!/\bobtainKrakenToken\s*\(/.test(b.query)) {
    // Any other operation: validated against the tenant schema pruned to what the client sends.
    try {
      return [...problems, ...validate(prunedSchema(), parse(b.query)).map((e) => e.message)];
    } catch (err) {
      return [...problems, `query does not parse: ${(err as Error).message}`];
    }
  }
  const afterCall = b.query.slice(b.query.indexOf('obtainKrakenToken'));
  const selection = /\)\s*\{([^}]*)\}/.exec(afterCall)?.[1] ?? '';
  for (const f of selection.match(/[A-Za-z_]\w*/g) ?? []) if (!TOKEN_RESULT_FIELDS.includes(f)) problems.push(`ObtainKrakenJSONWebToken has no field ${f}`);
  const vars = typeof b.variables === 'object' && b.variables !== null ? (b.variables as Record<string, unknown>) : {};
  const input = vars.input;
  if (typeof input === 'object' && input !== null) {
    const keys = Object.keys(input);
    for (const k of keys) if (!TOKEN_INPUT_FIELDS.includes(k)) problems.push(`ObtainJSONWebTokenInput has no field ${k}`);
    if (keys.length !== 1) problems.push('each ObtainJSONWebTokenInput field is used standalone');
  }
  return problems;
}

export interface StrictChecker {
  /** Route, method, query and auth form: checked before the body is read. */
  checkRequest(method: string, url: string, authorization: string | undefined): { route?: Route; violations: Omit<Violation, 'at'>[] };
  /** The body of a matched route. */
  checkBody(route: Route, method: string, path: string, body: unknown): Omit<Violation, 'at'>[];
}

export function createStrictChecker(doc: OpenApiDocument, validator: SpecValidator): StrictChecker {
  const routes = [...openApiRoutes(doc), ...DOCUMENT_ONE_ROUTES];
  const schemas = doc.components.schemas as Schemas;
  return {
    checkRequest(method, url, authorization) {
      const u = new URL(url, 'http://sandbox.invalid');
      const path = u.pathname;
      const onPath = routes.filter((r) => r.re.test(path));
      if (onPath.length === 0) return { violations: [{ method, path, kind: 'path', detail: 'no such path in the contract' }] };
      const route = onPath.find((r) => r.method === method);
      if (!route) return { violations: [{ method, path, kind: 'method', detail: `${method} is not an operation of ${onPath[0].template}` }] };
      const violations: Omit<Violation, 'at'>[] = [];
      for (const k of new Set(u.searchParams.keys())) {
        if (!route.query.includes(k)) violations.push({ method, path, kind: 'query', detail: `undeclared query parameter ${k}` });
      }
      const auth = checkAuthForm(route.auth, authorization);
      if (auth) violations.push({ method, path, kind: 'auth', detail: auth });
      return { route, violations };
    },
    checkBody(route, method, path, body) {
      if (!route.body) return body === undefined ? [] : [{ method, path, kind: 'body', detail: 'this operation takes no body' }];
      if ('graphql' in route.body) return checkGraphql(body).map((detail) => ({ method, path, kind: 'body' as const, detail }));
      const schema = route.body.schema;
      const out: Omit<Violation, 'at'>[] = [];
      for (const p of undeclaredProperties(schemas, schema, body)) out.push({ method, path, kind: 'body', detail: `undeclared property ${p} (${schema})` });
      if (schemas[schema])
        for (const e of validator.validate(schema, body)) out.push({ method, path, kind: 'body', detail: `${e.code} at ${e.attr} (${schema})` });
      return out;
    },
  };
}
