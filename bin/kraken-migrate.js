#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI without a build step: tsx's CommonJS hook compiles cli/*.ts on require.
// A Node older than package.json's engines stops here, with one line, before tsx loads.
require('../scripts/require-node.cjs');
const Module = require('node:module');
const path = require('node:path');
const nodeJs = Module._extensions['.js'];
require('tsx/cjs');
// Packages are plain JavaScript: Node loads them itself. Through tsx's hook each file is read and
// scanned for ESM syntax first, which doubled the Temporal SDK's load (its protobuf definitions
// above all): docs/throughput.md, "Operator answers at a million rows".
const tsxJs = Module._extensions['.js'];
const PACKAGES = `${path.sep}node_modules${path.sep}`;
Module._extensions['.js'] = function loadJs(module, filename) {
  return (filename.includes(PACKAGES) ? nodeJs : tsxJs).call(this, module, filename);
};
require('../cli/main.ts');
