// Plain CommonJS on purpose: Temporal loads this file by path (DataConverter.failureConverterPath)
// with a bare `require()` in the worker and client, and webpack bundles it into the workflow
// sandbox; a .js file loads the same way under tsx, vitest and the bundler.
'use strict';
const { DefaultFailureConverter } = require('@temporalio/common');

// Messages and stack traces go into an encoded payload so the payload codec encrypts them:
// validation failures quote personal data.
exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
