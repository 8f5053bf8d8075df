import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from source (the "@capstan/source" export condition), never a
// stale dist.
const conditions = ['@capstan/source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['packages/envtest/src/vitest/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
