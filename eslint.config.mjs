// Lint rules, including the import direction of docs/ARCHITECTURE.md:
// controllers/web/ssh -> services -> models/db/git/lock/pool/queue -> config/errors. Nothing imports controllers.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const deny = (...groups) => ({
  'no-restricted-imports': ['error', {
    patterns: groups.map((g) => ({ group: [`**/${g}`, `**/${g}/**`], message: `this layer must not import ${g} (see docs/ARCHITECTURE.md, layout)` })),
  }],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'src/generated/**', 'coverage/**', '.bench/**', '.tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // The page script runs in browsers.
  {
    files: ['src/web/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', fetch: 'readonly', btoa: 'readonly', atob: 'readonly' } },
  },
  // chai assertions such as `expect(x).to.be.empty` are expressions by design.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-unused-expressions': 'off' } },
  { files: ['src/**/*.ts', 'workers/**/*.ts', 'ssh/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'], rules: deny('controllers') },
  { files: ['src/services/**/*.ts'], ignores: ['src/services/webhook/payload.ts'], rules: deny('controllers', 'cli', 'web', 'middleware', 'convert', 'ssh') },
  // Hook payloads are API objects built when their event happens: the one service file that converts.
  { files: ['src/services/webhook/payload.ts'], rules: deny('controllers', 'cli', 'web', 'middleware', 'ssh') },
  { files: ['ssh/**/*.ts'], rules: deny('controllers', 'web', 'middleware', 'convert', 'models') },
  { files: ['src/convert/**/*.ts'], rules: deny('controllers', 'web', 'services', 'db', 'git', 'lock', 'pool', 'queue') },
  {
    files: ['src/models/**/*.ts', 'src/db/**/*.ts', 'src/git/**/*.ts', 'src/lock/**/*.ts', 'src/pool/**/*.ts', 'src/queue/**/*.ts'],
    rules: deny('controllers', 'cli', 'web', 'middleware', 'services', 'convert', 'ssh'),
  },
  // Rendering is pure: the caller says what a document may link to.
  { files: ['src/markup/**/*.ts'], rules: deny('controllers', 'cli', 'web', 'middleware', 'services', 'convert', 'models', 'db', 'git', 'lock', 'pool', 'queue', 'ssh') },
  { files: ['src/config/**/*.ts', 'src/errors/**/*.ts'], rules: deny('controllers', 'web', 'middleware', 'services', 'convert', 'models', 'db', 'git', 'lock', 'pool', 'queue') },
  { files: ['workers/**/*.ts'], rules: deny('controllers', 'web', 'middleware', 'services', 'models', 'db') },
  { files: ['migrations/**/*.ts'], rules: deny('models', 'services', 'controllers') },
);
