import { defineConfig } from 'vitest/config';

// Layers by file name: *.unit.spec.ts (pure logic), *.int.spec.ts (one adapter against its real
// server), *.e2e.spec.ts (the service over HTTP). Integration and e2e need the real components:
// test/global-setup.ts provides their endpoints or fails.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['**/*.unit.spec.ts'],
          exclude: ['**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'int',
          include: ['**/*.int.spec.ts', '**/*.e2e.spec.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Chromium and the JVM services share two cores: run files one at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
