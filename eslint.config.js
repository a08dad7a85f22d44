import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// Layer rules: apps → adapter libs → core → domain → schemas. Adapter libs never import each
// other; only an adapter lib imports its SDK; only an app's config.ts reads process.env.
const adapterLibs = ['kafka', 'redis', 's3', 'local-storage', 'renderer', 'pdf-tools'];
const sdkOwners = {
  kafkajs: 'kafka',
  '@kafkajs/confluent-schema-registry': 'kafka',
  ioredis: 'redis',
  '@aws-sdk/client-s3': 's3',
  '@aws-sdk/s3-request-presigner': 's3',
  playwright: 'renderer',
  'playwright-core': 'renderer',
};
const forbid = (names, message) => names.map((name) => ({ name, message }));
const layer = (files, forbidden, message) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { paths: forbid(forbidden, message) }] },
});

export default tseslint.config(
  { ignores: ['node_modules/**', '**/node_modules/**', 'data/**', '.infra/**', 'schemas/json/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname },
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
  layer(
    ['schemas/**/*.ts'],
    ['@pressroom/domain', '@pressroom/core', ...adapterLibs.map((l) => `@pressroom/${l}`)],
    'schemas depend on nothing of ours',
  ),
  layer(
    ['libs/domain/**/*.ts'],
    ['@pressroom/core', ...adapterLibs.map((l) => `@pressroom/${l}`), ...Object.keys(sdkOwners)],
    'domain is pure',
  ),
  layer(
    ['libs/core/**/*.ts'],
    [...adapterLibs.map((l) => `@pressroom/${l}`), ...Object.keys(sdkOwners)],
    'core holds ports and embedded adapters only',
  ),
  ...adapterLibs.map((lib) =>
    layer(
      [`libs/${lib}/**/*.ts`],
      [
        ...adapterLibs.filter((l) => l !== lib).map((l) => `@pressroom/${l}`),
        ...Object.entries(sdkOwners)
          .filter(([, owner]) => owner !== lib)
          .map(([sdk]) => sdk),
      ],
      'adapter libs never import each other or another adapter SDK',
    ),
  ),
  {
    // The Kafka log keeps stream versions in a guard that production composes from Redis
    // (libs/runtime); its contract run composes the same.
    files: ['libs/kafka/src/kafka-event-log.int.spec.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
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
