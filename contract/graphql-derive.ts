import { createHash } from 'node:crypto';
import {
  buildSchema,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  parse,
  printSchema,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type GraphQLArgumentConfig,
  type GraphQLFieldConfig,
  type GraphQLInputFieldConfig,
  type GraphQLNamedType,
  type GraphQLType,
} from 'graphql';

/**
 * The tenant's GraphQL schema pruned to what our operations reach: the root fields they call, the
 * fields they select on each type reached, every argument of those fields with its input types
 * whole (so a wrong argument is still refused), and the scalars and enums on the way. Interfaces
 * are dropped (we select on concrete types). The result is valid SDL that refuses any field,
 * argument or type the tenant lacks, and nothing we do not send is kept: a small file to review.
 */
export function pruneSchema(sdl: string, operations: string[]): GraphQLSchema {
  const full = buildSchema(sdl, { assumeValidSDL: true });
  const keep = new Map<string, Set<string>>();
  for (const op of operations) {
    const doc = parse(op);
    const errors = validate(full, doc);
    if (errors.length) throw new Error(`an operation does not validate against the tenant's schema: ${errors.map((e) => e.message).join('; ')}`);
    const info = new TypeInfo(full);
    visit(
      doc,
      visitWithTypeInfo(info, {
        Field(node) {
          const parent = info.getParentType();
          if (parent && !node.name.value.startsWith('__')) (keep.get(parent.name) ?? keep.set(parent.name, new Set()).get(parent.name)!).add(node.name.value);
        },
      }),
    );
  }

  const made = new Map<string, GraphQLNamedType>();
  const wrap = (t: GraphQLType): GraphQLType => {
    if (isNonNullType(t)) return new GraphQLNonNull(wrap(t.ofType) as never);
    if (isListType(t)) return new GraphQLList(wrap(t.ofType));
    return named(t);
  };
  const args = (a: Record<string, GraphQLArgumentConfig> | undefined) =>
    Object.fromEntries(Object.entries(a ?? {}).map(([k, v]) => [k, { ...v, type: wrap(v.type) as never, astNode: undefined }]));
  function named(t: GraphQLNamedType): GraphQLNamedType {
    if (isSpecifiedScalarType(t)) return t;
    const done = made.get(t.name);
    if (done) return done;
    let out: GraphQLNamedType;
    if (isObjectType(t) || isInterfaceType(t)) {
      const cfg = t.toConfig();
      const picked = keep.get(t.name) ?? new Set<string>();
      const fields = (): Record<string, GraphQLFieldConfig<unknown, unknown>> =>
        Object.fromEntries(
          Object.entries(cfg.fields as Record<string, GraphQLFieldConfig<unknown, unknown>>)
            .filter(([k]) => picked.has(k))
            .map(([k, f]) => [k, { ...f, type: wrap(f.type) as never, args: args(f.args), astNode: undefined }]),
        );
      out = isObjectType(t)
        ? new GraphQLObjectType({ ...(cfg as ReturnType<GraphQLObjectType['toConfig']>), interfaces: [], fields, astNode: undefined, extensionASTNodes: [] })
        : new GraphQLInterfaceType({
            ...(cfg as ReturnType<GraphQLInterfaceType['toConfig']>),
            interfaces: [],
            fields,
            astNode: undefined,
            extensionASTNodes: [],
          });
    } else if (isInputObjectType(t)) {
      const cfg = t.toConfig();
      out = new GraphQLInputObjectType({
        ...cfg,
        fields: () =>
          Object.fromEntries(
            Object.entries(cfg.fields).map(([k, f]: [string, GraphQLInputFieldConfig]) => [k, { ...f, type: wrap(f.type) as never, astNode: undefined }]),
          ),
        astNode: undefined,
        extensionASTNodes: [],
      });
    } else if (isScalarType(t)) out = new GraphQLScalarType({ ...t.toConfig(), astNode: undefined, extensionASTNodes: [] });
    else if (isEnumType(t)) out = new GraphQLEnumType({ ...t.toConfig(), astNode: undefined, extensionASTNodes: [] });
    else throw new Error(`our operations reach ${t.name}, a union: select on its concrete types`);
    made.set(t.name, out);
    return out;
  }
  const root = (t: GraphQLObjectType | null | undefined) => (t && keep.has(t.name) ? (named(t) as GraphQLObjectType) : undefined);
  return new GraphQLSchema({ query: root(full.getQueryType()), mutation: root(full.getMutationType()) });
}

export interface GraphqlProvenance {
  source: string;
  derivedOn: string;
}

/** The pruned schema as committed: a provenance header (comments) and the printed SDL. */
export function derivePrunedSdl(sdl: string, operations: string[], p: GraphqlProvenance): string {
  const sha = createHash('sha256').update(sdl).digest('hex');
  return (
    [
      `# Derived by \`npm run contract:update\` from ${p.source} (sha256 ${sha}) on ${p.derivedOn}.`,
      '# The tenant schema pruned to the types and fields the operations in contract/graphql/*.graphql reach.',
      '# Do not edit: change an operation and re-run contract:update.',
      '',
    ].join('\n') +
    printSchema(pruneSchema(sdl, operations)) +
    '\n'
  );
}

/** The source sha256 recorded in a derived file's header, if any. */
export function provenanceSha(derived: string): string | undefined {
  return /\(sha256 ([0-9a-f]{64})\)/.exec(derived)?.[1];
}
