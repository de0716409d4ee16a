/**
 * `npm run contract:update [-- <path to kraken-data-import-openapi.yml> [<path to kraken-graphql-schema.graphql>]]`
 *
 * Derives `contract/data-import.contract.json` from the tenant's OpenAPI document, and
 * `contract/graphql/schema.graphql` from its GraphQL SDL, pruned to what the operations in
 * `contract/graphql/` reach (an operation the tenant's schema refuses stops the update). This is the only
 * code in the project that reads the reference folder beside the repository; the product and its
 * tests read the derived file, so a clone with nothing beside it works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { deriveContract } from '../contract/derive';
import { CONTRACT_FILE } from '../contract';
import { derivePrunedSdl, provenanceSha } from '../contract/graphql-derive';
import { GRAPHQL_SCHEMA_FILE, graphqlOperations } from '../contract/graphql';

const repo = path.resolve(__dirname, '..');
const DEFAULT_SOURCE = '../shared/reference/kraken-data-import-openapi.yml';
const DEFAULT_GRAPHQL_SOURCE = '../shared/reference/kraken-graphql-schema.graphql';

function updateGraphql(source: string): void {
  const sourcePath = path.resolve(repo, source);
  if (!fs.existsSync(sourcePath)) {
    console.error(`contract:update: the GraphQL schema was not found at ${source} (relative to the repository); pass its path as the second argument`);
    process.exit(2);
  }
  const sdl = fs.readFileSync(sourcePath, 'utf8');
  const out = path.join(repo, GRAPHQL_SCHEMA_FILE);
  const previous = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : undefined;
  let derived = derivePrunedSdl(sdl, Object.values(graphqlOperations()), {
    source: path.basename(sourcePath),
    derivedOn: new Date().toISOString().slice(0, 10),
  });
  // Same source: keep the old date, so re-running on an unchanged schema changes nothing.
  const oldDate = previous && provenanceSha(previous) === provenanceSha(derived) ? /on (\d{4}-\d{2}-\d{2})\./.exec(previous)?.[1] : undefined;
  if (oldDate) derived = derived.replace(/on \d{4}-\d{2}-\d{2}\./, `on ${oldDate}.`);
  fs.writeFileSync(out, derived);
  const types = (derived.match(/^(type|input|enum|scalar) /gm) ?? []).length;
  console.log(`contract:update: ${GRAPHQL_SCHEMA_FILE} from ${path.basename(sourcePath)}: ${types} types the operations reach`);
}

function main(): void {
  const source = process.argv[2] ?? DEFAULT_SOURCE;
  const sourcePath = path.resolve(repo, source);
  if (!fs.existsSync(sourcePath)) {
    console.error(`contract:update: the OpenAPI document was not found at ${source} (relative to the repository); pass its path as the argument`);
    process.exit(2);
  }
  const text = fs.readFileSync(sourcePath, 'utf8');
  const contract = deriveContract(text, {
    // The document's name only: the file records no machine path and no folder outside the repository.
    source: path.basename(sourcePath),
    derivedOn: new Date().toISOString().slice(0, 10),
  });
  const out = path.join(repo, CONTRACT_FILE);
  const previous = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as typeof contract) : undefined;
  // Same source: keep the old date, so re-running the script on an unchanged document changes nothing.
  if (previous && previous['x-provenance']?.sourceSha256 === contract['x-provenance'].sourceSha256) {
    contract['x-provenance'].derivedOn = previous['x-provenance'].derivedOn;
  }
  fs.writeFileSync(out, JSON.stringify(contract, null, 1) + '\n');
  const p = contract['x-provenance'];
  console.log(
    `contract:update: ${CONTRACT_FILE} from ${p.source} (sha256 ${p.sourceSha256.slice(0, 12)}…, derived ${p.derivedOn}): ` +
      `${Object.keys(contract.paths).length} paths, ${Object.keys(contract.components.schemas).length} component schemas`,
  );
}

main();
updateGraphql(process.argv[3] ?? DEFAULT_GRAPHQL_SOURCE);
