import fs from 'node:fs';
import YAML from 'yaml';

import { resolveSpecPath } from '../../../sandbox/openapi/spec';

const SPEC_PATH = resolveSpecPath();

/**
 * The OpenAPI document is YAML 1.1 as PyYAML writes it: plain scalars like `07123456789` or `0393`
 * (a leading zero and an 8 or 9, so not octal) are strings there, while the `yaml` package reads
 * them as decimal integers. Restore the spec author's strings.
 */
function loadSpec(): any {
  const doc = YAML.parseDocument(fs.readFileSync(SPEC_PATH, 'utf8'), { version: '1.1' });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'number' && node.type === 'PLAIN' && typeof node.source === 'string' && /^0\d*[89]\d*$/.test(node.source)) {
        node.value = node.source;
      }
    },
  });
  return doc.toJS();
}

let cached: any;
export function spec(): any {
  cached ??= loadSpec();
  return cached;
}

export function exampleOf(path: string, name = 'ExamplePayload'): any {
  return structuredClone(spec().paths[path].post.requestBody.content['application/json'].examples[name].value);
}
