import { defineConfig } from 'vitest/config';

// The unit tests StrykerJS runs for each mutant (`npm run mutation`, stryker.config.mjs): no
// services, no projects. MUTATION_TESTS narrows them (the CI variant's list, stryker.ci.config.mjs).
export default defineConfig({
  test: {
    include: process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(',') : ['test/unit/**/*.test.ts'],
    // A mutant that makes a test hang is killed by this timeout: keep it short (the tests here take milliseconds).
    testTimeout: 5_000,
  },
});
