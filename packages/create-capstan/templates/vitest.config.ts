import { defineConfig } from 'vitest/config';

// One control plane for the whole run, shared by the test files; the long hook timeout covers
// the first run, which builds the binaries. `include` keeps vitest off the compiled copies in dist/.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['@capstan/envtest/vitest/global-setup'],
    hookTimeout: 600_000,
    testTimeout: 30_000,
  },
});
