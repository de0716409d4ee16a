#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI without a build step: tsx's CommonJS hook compiles cli/*.ts on require.
require('tsx/cjs');
require('../cli/main.ts');
