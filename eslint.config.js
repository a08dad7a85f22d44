import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// Layer rules: apps → (webhooks, runtime) → adapter libs → core → domain → schemas. Adapter libs
// never import each other; apps never import apps (standalone, which runs all four in one process,
// is the one composition of apps); only an adapter lib imports its SDK; nobody imports into another
// package's src (only its barrel); only an app's config.ts reads process.env. ARCHITECTURE.md draws it.
const adapterLibs = ['kafka', 'redis', 's3', 'local-storage', 'renderer', 'pdf-tools'];
const apps = ['ingress', 'render-worker', 'status-projector', 'webhook-dispatcher', 'ops', 'standalone'];
const sdkOwners = {
  kafkajs: 'kafka',
  '@kafkajs/confluent-schema-registry': 'kafka',
  ioredis: 'redis',
  '@aws-sdk/client-s3': 's3',
  '@aws-sdk/s3-request-presigner': 's3',
  '@aws-sdk/client-sts': 's3',
  playwright: 'renderer',
  'playwright-core': 'renderer',
};
const ours = (names) => names.map((n) => `@pressroom/${n}`);
const sdksNotOwnedBy = (lib) =>
  Object.entries(sdkOwners)
    .filter(([, owner]) => owner !== lib)
    .map(([sdk]) => sdk);
/** Everywhere: a package is reached through its barrel, never by a path into its src. */
const noDeepImports = [
  { group: ['@pressroom/*/*'], message: "import a package's barrel (@pressroom/x), not a file inside it" },
  { group: ['**/libs/**', '**/apps/**', '**/schemas/src/**'], message: 'no relative path into another package: import @pressroom/x' },
];
/** One config per package: ESLint keeps only the last `no-restricted-imports` that matches a file. */
const layer = (files, forbidden, message) => ({
  files,
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': ['error', { paths: forbidden.map((name) => ({ name, message })), patterns: noDeepImports }],
  },
});
const upper = ['webhooks', 'runtime', 'observability', 'testing', ...apps];
const layers = [
  layer(['schemas/**/*.ts'], ours(['domain', 'core', ...adapterLibs, ...upper]), 'schemas depend on nothing of ours'),
  layer(['libs/domain/**/*.ts'], [...ours(['core', ...adapterLibs, ...upper]), ...Object.keys(sdkOwners)], 'domain is pure'),
  layer(
    ['libs/core/**/*.ts'],
    [...ours([...adapterLibs, ...upper]), ...Object.keys(sdkOwners)],
    'core holds ports and embedded adapters only',
  ),
  layer(
    ['libs/observability/**/*.ts'],
    [...ours([...adapterLibs, 'webhooks', 'runtime', 'testing', ...apps]), ...Object.keys(sdkOwners)],
    'observability sits beside core',
  ),
  layer(
    ['libs/webhooks/**/*.ts'],
    [...ours([...adapterLibs, 'runtime', 'testing', ...apps]), ...Object.keys(sdkOwners)],
    'webhooks use ports, never an adapter lib or an SDK',
  ),
  ...adapterLibs.map((lib) =>
    layer(
      [`libs/${lib}/**/*.ts`],
      [...ours([...adapterLibs.filter((l) => l !== lib), 'webhooks', 'runtime', 'testing', ...apps]), ...sdksNotOwnedBy(lib)],
      'adapter libs never import each other or another adapter SDK',
    ),
  ),
  layer(['libs/testing/**/*.ts'], [...ours(['runtime', ...apps]), ...Object.keys(sdkOwners)], 'testing holds contracts and helpers'),
  layer(['libs/runtime/**/*.ts'], [...ours([...apps, 'testing']), ...Object.keys(sdkOwners)], 'runtime composes libs, never apps'),
  ...apps
    .filter((app) => app !== 'standalone')
    .map((app) =>
      layer(
        [`apps/${app}/**/*.ts`],
        [...ours([...apps.filter((a) => a !== app), 'testing']), ...Object.keys(sdkOwners)],
        'apps never import apps (nor an SDK: that is an adapter lib’s)',
      ),
    ),
  layer(['apps/standalone/**/*.ts'], [...ours(['testing']), ...Object.keys(sdkOwners)], 'standalone composes apps, nothing else'),
  {
    // Tests reach their support files (test/support) and may compose adapters; still no deep imports.
    files: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noDeepImports[0]] }] },
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '**/node_modules/**', 'data/**', '.infra/**', 'schemas/json/**', 'coverage/**', '.tsbuild/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/run-ts.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/require-await': 'off',
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: "Only an app's config.ts reads process.env." },
      ],
    },
  },
  {
    // host-env.ts builds the renderer host's environment: it passes PATH and locale on, never settings.
    files: [
      'apps/*/src/config.ts',
      'libs/renderer/src/host/host-env.ts',
      '**/*.spec.ts',
      'test/**',
      'bench/**',
      'scripts/**',
      'vitest.config.ts',
      'eslint.config.js',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  ...layers,
  {
    // Tests read JSON bodies loosely on purpose: they assert on what a caller sees.
    files: ['**/*.spec.ts', 'test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  prettier,
);
