/**
 * `npm run contract:update [-- <path to kraken-data-import-openapi.yml>]`
 *
 * Derives `contract/data-import.contract.json` from the tenant's OpenAPI document. This is the only
 * code in the project that reads the reference folder beside the repository; the product and its
 * tests read the derived file, so a clone with nothing beside it works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { deriveContract } from '../contract/derive';
import { CONTRACT_FILE } from '../contract';

const repo = path.resolve(__dirname, '..');
const DEFAULT_SOURCE = '../shared/reference/kraken-data-import-openapi.yml';

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
