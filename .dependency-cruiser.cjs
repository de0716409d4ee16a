/**
 * The floor plan, checked by a tool (`npm run deps:check`, run by .ci/run). docs/design.md "What runs
 * where" draws the same layers. A folder may import its own layer and the layers below it, never
 * one above; no module may reach itself again through its imports (type-only imports count: a cycle
 * of types is still a knot in the design). Workflow files import only @temporalio/workflow, the
 * bottom layer, their siblings and activity TYPES, as Temporal's workflow sandbox wants.
 */

/** Bottom first. Folders on one line stand side by side: they may import one another. */
const PRODUCT = [
  ['domain'],
  ['contract'],
  ['schemas', 'config', 'process', 'db'],
  ['logging'],
  ['codec'],
  ['clients'],
  ['source', 'reconcile'],
  ['ledger'],
  ['activities'],
  ['workflows'],
  ['events', 'workers'],
  ['scripts'],
  ['cli'],
];
/** The proving ground stands on the product and is never stood on (the harness rule below). */
const HARNESS = [
  ['harness/measure', 'harness/sandbox', 'harness/browser'],
  ['harness/synthetic', 'harness/seed'],
  ['harness/stack'],
  ['harness/chaos', 'harness/rehearsal'],
  ['harness/cli'],
  // The benchmarks time the operator commands themselves (harness/bench/ledger-part.ts): they stand on top.
  ['harness/bench'],
];
const LAYERS = [...PRODUCT, ...HARNESS];

const folders = (layer) => `^(${layer.join('|')})/`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.join('-')}`,
  comment: `${layer.join(', ')} may import only ${LAYERS.slice(0, i + 1)
    .flat()
    .join(', ')} (docs/design.md, "What runs where").`,
  severity: 'error',
  from: { path: folders(layer) },
  to: { path: folders(LAYERS.slice(i + 1).flat()) },
}));

/** The bottom layer depends on nothing of the project: every other folder stands on it. */
const domainAlone = {
  name: 'domain-imports-nothing-of-the-project',
  severity: 'error',
  from: { path: '^domain/' },
  to: { path: '^[^/]+/', pathNot: ['^domain/', '^node_modules/'] },
};

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import one another (type-only imports included).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    domainAlone,
    {
      name: 'product-never-imports-the-harness',
      comment: 'The stand-ins, synthetic data and proving runs (harness/, a package of its own) are not shipped: no product folder may import them.',
      severity: 'error',
      from: { path: folders(PRODUCT.flat()) },
      to: { path: '^harness/' },
    },
    {
      name: 'packages-from-own-package-json',
      comment:
        "A package is imported only where the nearest package.json declares it: the product's (the root) lists what ships, the harness's (harness/package.json) the stand-ins and measurement tools.",
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'product-never-imports-dev-packages',
      comment: 'What the image runs comes from `dependencies` only (the Dockerfile installs with --omit=dev).',
      severity: 'error',
      from: { path: folders(PRODUCT.flat()) },
      to: { dependencyTypes: ['npm-dev'] },
    },
    ...upward,
    {
      name: 'workflow-imports',
      comment: 'Workflow files run in the deterministic sandbox: @temporalio/workflow, domain/, sibling workflow files and activity types only.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { pathNot: ['^workflows/', '^domain/', '^activities/', '^node_modules/@temporalio/workflow/'] },
    },
    {
      name: 'workflow-activity-types-only',
      comment: 'Workflows proxy activities; they import their types, never their code (import type).',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-zod-contracts-as-types',
      comment: 'The zod schemas of the workflow inputs stay out of the workflow bundle: workflow files import them as types.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^domain/(inputs|post-import-inputs|source-spec)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests (the product's in test/, the harness's in harness/test/) may reach into any layer; the floor plan is the code's.
    exclude: { path: '^(test|harness/test|\\.data|\\.tools)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count (a cycle of types is a cycle), and workflow rules can tell them apart.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
