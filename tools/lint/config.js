// Parley's ESLint rules; the root eslint.config.js re-exports this file. It lives beside its packages
// because typescript-eslint needs TypeScript's JS API (typescript 6) while the repo builds with
// TypeScript 7, which has none: tools/lint is a separate install, so its imports resolve there.
// No type-aware rules: `tsc` already checks types, and the whole repo lints in about 20 s on 2 cores.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const foldersIn = (dir) =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

const services = foldersIn('services/').filter((name) => name !== 'common');
// The gateway's files that compose the features into one app (routes, GraphQL schema and context).
const gatewayComposition = ['app.ts', 'api.ts', 'graphql.ts', 'context.ts'];
const gatewayHttp = readdirSync(join(root, 'gateway/src/http'))
  .filter((name) => name.endsWith('.ts') && !gatewayComposition.includes(name))
  .map((name) => `gateway/src/http/${name}`);
// access/permissions.ts collects the features' operation tables (each feature's rest.ts, http/operations.ts).
const gatewayAccess = readdirSync(join(root, 'gateway/src/access'))
  .filter((name) => name.endsWith('.ts') && name !== 'permissions.ts')
  .map((name) => `gateway/src/access/${name}`);
const gatewayFeatures = foldersIn('gateway/src/features/');
// A gateway feature's one public file is its view module, features/<feature>/<feature>.ts (its
// service calls and JSON views); everything else in its folder (rest.ts, resolvers.ts, routes, events,
// exports) is its own.
const featureZones = gatewayFeatures.map((name) => ({
  target: `gateway/src/features/${name}`,
  from: 'gateway/src/features',
  except: [`./${name}`, ...gatewayFeatures.map((other) => `./${other}/${other}.ts`)],
  message:
    "A gateway feature imports only another feature's view module (features/<feature>/<feature>.ts); move what both need into gateway/src/http or that view module.",
}));
const features = foldersIn('web/src/features/');

// Which folder may import which (import-x/no-restricted-paths resolves every import, package names
// like @parley/billing included, and compares real paths). Imports flow one way:
// web app → features → shared web code; service → service kit (services/common) and proto. The public
// chat page (web/chat-page, on preact/compat, ADR 38) imports nothing from the dashboard (web/src, on React 19),
// which may use only the page's shared components and helpers.
const boundaries = [
  // A service talks to another only over RPC or a queue, never by importing its code; the kit
  // serves every service and so imports none. Tests may start other services in-process.
  ...services.map((name) => ({
    target: `services/${name}/src`,
    from: 'services',
    except: [`./${name}`, './common'],
    message: 'A service imports only its own code, services/common and proto; call other services over RPC or a queue.',
  })),
  {
    target: 'services/common/src',
    from: ['services', 'gateway'],
    except: ['./common'],
    message: 'services/common is the kit every service uses; it must not depend on a service or the gateway.',
  },
  {
    target: 'services',
    from: ['gateway', 'web'],
    message: 'Services do not depend on the gateway or the web app.',
  },
  // The gateway only maps HTTP/GraphQL onto service clients; its tests may start services in-process.
  {
    target: 'gateway/src',
    from: 'services',
    except: ['./common'],
    message: 'The gateway reaches services through their clients (proto), never their code.',
  },
  // Inside the gateway: access/ (who calls) and http/ (transport) serve every feature and so import
  // none, nor the test-mode pages; only the composition files put the features together.
  {
    target: [...gatewayAccess, ...gatewayHttp],
    from: ['gateway/src/features', 'gateway/src/test-mode'],
    message:
      'gateway/src/access and gateway/src/http serve every feature and import none; only the composition files (' +
      gatewayComposition.join(', ') +
      ') put features together.',
  },
  {
    target: 'gateway/src/access/permissions.ts',
    from: ['gateway/src/features', 'gateway/src/test-mode'],
    except: gatewayFeatures.map((name) => `./${name}/rest.ts`),
    message: "access/permissions.ts reads each feature's operation table (features/<feature>/rest.ts) and nothing else of a feature.",
  },
  {
    target: ['web/src', 'web/chat-page'],
    from: ['services', 'gateway', 'proto'],
    message: 'The web app talks to the gateway over HTTP only.',
  },
  {
    target: 'web/chat-page',
    from: 'web/src',
    message:
      'The public chat page runs on preact/compat and must stay small: it imports nothing from the dashboard (web/src). ' +
      'Give the page its own copy, or move the module into web/chat-page/src/components or src/lib (ADR 21, ADR 38).',
  },
  {
    target: 'web/src',
    from: 'web/chat-page',
    except: ['./src/components', './src/lib'],
    message: 'The dashboard uses only the chat page’s shared components and helpers (web/chat-page/src/components and src/lib).',
  },
  {
    target: ['web/chat-page/src/components', 'web/chat-page/src/lib'],
    from: 'web/chat-page/src',
    except: ['./components', './lib'],
    message: 'The chat page’s shared components and helpers must not depend on the page, the widget or their entry.',
  },
  // Features never import each other: shared code moves to web/src/lib or web/src/components.
  ...features.map((name) => ({
    target: `web/src/features/${name}`,
    from: 'web/src/features',
    except: [`./${name}`],
    message: 'Web features never import each other; move what both need to web/src/lib or web/src/components.',
  })),
  {
    target: 'web/src/features',
    from: 'web/src/app',
    message: 'Features are composed by web/src/app, not the other way round.',
  },
  {
    target: ['web/src/lib', 'web/src/components'],
    from: ['web/src/features', 'web/src/app'],
    message: 'Shared web code must not depend on a feature or on the app shell.',
  },
];

// Layers inside a service (docs/adr/0024-layers-in-a-service.md). Each service's src/ has a bottom
// layer, core/ (ids, input rules, ownership checks, types several capabilities share), and capability
// folders above it, listed here bottom up; a folder imports only its own code, the layers below it,
// generated/ and config.ts, so capabilities never import each other in a circle. A folder in no
// layer stands on core/ alone. What needs two capabilities of one layer, or a layer above, sits at
// the src/ top level beside rpc.ts and service.ts, which import anything.
export const layers = {
  auth: [['mail'], ['sessions'], ['accounts'], ['passwords'], ['password-reset'], ['workspaces'], ['api-keys'], ['two-factor'], ['sso']],
  billing: [['credit', 'payments', 'usage'], ['accounts']],
  chat: [
    ['analytics', 'models', 'usage'],
    ['public-chat', 'provider-keys'],
    ['conversations', 'handoff', 'channels'],
    ['export', 'feedback', 'insights'],
    ['leads', 'quality'],
  ],
  chatbot: [['actions', 'interactions', 'knowledge', 'pictures', 'webhooks'], ['chatbots']],
};

const layerZones = Object.entries(layers).flatMap(([service, capabilities]) => {
  const src = `services/${service}/src`;
  const zone = (folder, below) => ({
    target: `${src}/${folder}`,
    from: src,
    except: [folder, ...below, 'generated', 'config.ts'].map((path) => `./${path}`),
    message: `${folder}/ imports only ${below.length ? below.map((f) => `${f}/`).join(', ') + ', ' : ''}generated/ and config.ts of its service (layers in tools/lint/config.js); what needs more goes beside rpc.ts.`,
  });
  const listed = ['core', ...capabilities.flat()];
  const unlisted = foldersIn(src).filter((name) => !listed.includes(name) && name !== 'generated' && name !== '__tests__');
  return [
    zone('core', []),
    ...capabilities.flatMap((layer, i) => layer.map((folder) => zone(folder, ['core', ...capabilities.slice(0, i).flat()]))),
    ...unlisted.map((folder) => zone(folder, ['core'])),
  ];
});

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.tools/**',
      '.data/**',
      'test-results/**',
      'playwright-report/**',
      // generated, regenerated by `npm run generate` or `buf generate`
      'proto/gen/**',
      'services/*/src/generated/**',
      'gateway/src/generated/**',
      'web/src/gql/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { globals: globals.node },
    plugins: { 'import-x': importX },
    settings: {
      // how import-x reads and resolves the files an import points to (no-cycle follows them)
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['tsconfig.json', 'web/tsconfig.json', 'web/chat-page/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      // `_name` marks a parameter or binding kept on purpose (a callback's shape, a destructured rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'import-x/no-restricted-paths': ['error', { basePath: root, zones: [...boundaries, ...featureZones, ...layerZones] }],
      // A cycle makes load order matter and hides which module owns what.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'web/chat-page/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    // The two classic hook rules; the plugin's React Compiler rules (recommended-latest) are not on yet.
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  // BullMQ's package index loads every class and its PostgreSQL backend: the services take the classes
  // from services/common/src/bullmq.ts, and only types from 'bullmq' (docs/adr/0068-memory-at-rest.md).
  {
    files: ['services/*/src/**/*.ts', 'gateway/src/**/*.ts'],
    ignores: ['**/__tests__/**', 'services/common/src/testing/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'bullmq',
              message: "Import BullMQ's classes from services/common/src/bullmq.ts; only types from 'bullmq'.",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  // A unit test may compose capabilities as service.ts does (seed through one, check another); the
  // boundaries between packages still hold.
  {
    files: ['services/*/src/**/__tests__/**'],
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: root, zones: boundaries }] },
  },
  // Tests read untyped JSON bodies and build partial fakes; `any` there costs less than a cast per line.
  {
    files: ['**/__tests__/**', '**/test/**', '**/*.test.{ts,tsx}', 'e2e/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Formatting belongs to Prettier (`prettier --check` in `npm run lint`): switch off overlapping rules.
  prettier,
);
