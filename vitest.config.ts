import { defineConfig } from 'vitest/config';

const integration = ['**/*.int.spec.ts', '**/*.e2e.spec.ts'];
/**
 * Files that must have the machine to themselves: their hostile renders spin Chromium on every
 * core for the whole file (fair-capacity tests), so a file beside them would crawl, and their
 * sync waits are sized for a machine that is not saturated by a neighbour.
 */
const alone = ['test/e2e/embedded-fairness.e2e.spec.ts', 'test/e2e/distributed-fairness.e2e.spec.ts'];

// Layers by file name: *.unit.spec.ts (pure logic), *.int.spec.ts (one adapter against its real
// server), *.e2e.spec.ts (the service over HTTP). Integration and e2e need the real components:
// test/global-setup.ts provides their endpoints or fails.
//
// Two files at a time: most integration files spend their time waiting (a broker stopped for 20 s,
// Kafka group joins, webhook retries, apps starting), not computing, so a second file fills the
// gaps. Projects of one group must share `maxWorkers` (unit runs in the same pool, after int).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['**/*.unit.spec.ts'],
          exclude: ['**/node_modules/**'],
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'int',
          include: integration,
          exclude: ['**/node_modules/**', ...alone],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'int-alone',
          include: alone,
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Run after the others, one file at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
