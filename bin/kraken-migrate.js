#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI without a build step: tsx's CommonJS hook compiles cli/*.ts on require.
// A Node older than package.json's engines stops here, with one line, before tsx loads.
require('../scripts/require-node.cjs');
require('tsx/cjs');
require('../cli/main.ts');
