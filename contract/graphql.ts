import fs from 'node:fs';
import path from 'node:path';

/**
 * The GraphQL operations the client sends and the tenant schema pruned to what they reach (see
 * contract/README.md). Read from files in this folder; nothing outside the repository.
 */
export const GRAPHQL_DIR = 'contract/graphql';
export const GRAPHQL_SCHEMA_FILE = `${GRAPHQL_DIR}/schema.graphql`;

const read = (name: string) => fs.readFileSync(path.join(__dirname, 'graphql', name), 'utf8');

/** Every operation file (`*.graphql` except the schema), by file name. */
export function graphqlOperations(): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(path.join(__dirname, 'graphql'))
      .filter((f) => f.endsWith('.graphql') && f !== 'schema.graphql')
      .sort()
      .map((f) => [f, read(f)]),
  );
}

export const ACCOUNT_READ_BACK_QUERY = read('account-read-back.graphql');
export const OBTAIN_TOKEN_MUTATION = read('obtain-kraken-token.graphql');

/** The pruned schema's SDL. */
export function prunedSchemaSdl(): string {
  return read('schema.graphql');
}
