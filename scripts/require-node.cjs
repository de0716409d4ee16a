'use strict';
// Loaded before tsx (the npm scripts, bin/kraken-migrate.js): on a Node older than package.json's
// `engines`, later code fails far from the cause (`node:sqlite` missing in the S3/SQS stand-in after
// Postgres started), so it stops here with one line. Dependency-free, and plain CommonJS, on purpose.
const path = require('node:path');

function parse(v) {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(v).trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined;
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** The error line when Node `version` does not satisfy `range` (only `>=X[.Y[.Z]]` is read), else undefined. */
function checkNode(range, version, execPath = process.execPath) {
  const want = /^>=\s*(\S+)$/.exec(String(range).trim());
  const min = want && parse(want[1]);
  if (!min) return `error [node_engines_unreadable]: package.json engines.node is "${range}", and scripts/require-node.cjs reads only ">=X.Y.Z"`;
  const have = parse(version);
  if (have && compare(have, min) >= 0) return undefined;
  return `error [node_too_old]: kraken-migrate needs Node ${range} (package.json engines), and this is Node ${version} (${execPath}): put Node ${want[1]} or later (.nvmrc) first on PATH`;
}

module.exports = { checkNode };

const line = checkNode(require(path.join(__dirname, '..', 'package.json')).engines.node, process.versions.node);
if (line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
