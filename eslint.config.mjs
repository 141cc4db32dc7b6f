// Lint rules, including the import direction of docs/ARCHITECTURE.md:
// controllers/web/ssh -> services -> models/db/git/lock/pool/queue -> config/errors/log. Nothing imports controllers.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const deny = (...groups) => ({
  'no-restricted-imports': ['error', {
    patterns: groups.map((g) => ({ group: [`**/${g}`, `**/${g}/**`], message: `this layer must not import ${g} (see docs/ARCHITECTURE.md, layout)` })),
  }],
});

// Service folders (docs/ARCHITECTURE.md, events): the notifier's subscribers hear the domains'
// events, so no domain folder imports a subscriber's folder, nor the payload builders they share;
// the notifier imports no service folder at all.
const SERVICE_DENY = ['controllers', 'cli', 'web', 'middleware', 'convert', 'ssh'];
const SUBSCRIBERS = ['webhook', 'activity', 'notification', 'actions'];
const serviceFolders = readdirSync('src/services', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const domainFolders = serviceFolders.filter((f) => ![...SUBSCRIBERS, 'payload', 'notify'].includes(f));
const siblings = (names, message) => names.map((n) => ({ group: [`../${n}`, `../${n}/**`], message }));
const serviceRules = (layers, folders, message) => ({
  'no-restricted-imports': ['error', {
    patterns: [
      ...layers.map((g) => ({ group: [`**/${g}`, `**/${g}/**`], message: `this layer must not import ${g} (see docs/ARCHITECTURE.md, layout)` })),
      ...siblings(folders, message),
    ],
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
  { files: ['src/services/**/*.ts'], ignores: ['src/services/webhook/payload.ts'], rules: deny(...SERVICE_DENY) },
  {
    files: domainFolders.map((f) => `src/services/${f}/**/*.ts`),
    rules: serviceRules(SERVICE_DENY, [...SUBSCRIBERS, 'payload'], 'a domain states events through the notifier and never imports a subscriber (docs/ARCHITECTURE.md, events)'),
  },
  {
    files: ['src/services/actions/**/*.ts'],
    rules: serviceRules(SERVICE_DENY, ['webhook', 'activity', 'notification'], 'a subscriber never imports another subscriber\'s folder (docs/ARCHITECTURE.md, events)'),
  },
  {
    files: ['src/services/notify/**/*.ts'],
    rules: serviceRules(SERVICE_DENY, serviceFolders.filter((f) => f !== 'notify'), 'the notifier imports no service folder (docs/ARCHITECTURE.md, events)'),
  },
  // Hook payloads are API objects built when their event happens: the payload builders and the hook emitters convert.
  {
    files: ['src/services/payload/**/*.ts'],
    rules: serviceRules(SERVICE_DENY.filter((g) => g !== 'convert'), SUBSCRIBERS, 'payloads are built for subscribers, never from them (docs/ARCHITECTURE.md, events)'),
  },
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
  // The log sits beside config: anything may write to it; it reads only the settings.
  { files: ['src/log/**/*.ts'], rules: deny('controllers', 'cli', 'web', 'middleware', 'services', 'convert', 'models', 'db', 'git', 'lock', 'pool', 'queue', 'ssh', 'markup') },
  { files: ['workers/**/*.ts'], rules: deny('controllers', 'web', 'middleware', 'services', 'models', 'db') },
  { files: ['migrations/**/*.ts'], rules: deny('models', 'services', 'controllers') },
);
