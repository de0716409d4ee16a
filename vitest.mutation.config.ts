import { defineConfig } from 'vitest/config';

// The unit tests StrykerJS runs for each mutant (`npm run mutation`, stryker.config.mjs): no
// services, no projects. MUTATION_TESTS narrows them (the CI variant's list, stryker.ci.config.mjs).
export default defineConfig({
  test: {
    include: process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(',') : ['test/unit/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
