import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import { build, defineConfig, type Alias, type Connect, type Plugin } from 'vite';

// The public chat page (chat.html) and widget.js, built into the web app's web/dist, which the
// gateway serves: chat.html for /chat/{uniqueId} and the widget's iframe /embed/{uniqueId}, its
// scripts under /assets, and /widget.js. The web app's build runs this one after its own (so
// whatever builds web/dist builds these too); `vite build` here builds them alone.
// The page is written against React's API and runs on Preact's React-compatible layer
// (preact/compat: 7.7 KiB gzip with Preact and its hooks, against React 18's 43.6 KiB), so that it
// stays well within its 60 KB budget (ADR 38). The page calls nothing React 19 added, which
// preact/compat lacks too (scripts/check-bundle-size.ts fails `npm test` otherwise).

// In development the API and the uploaded media live on the gateway.
const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist', import.meta.url));

/** The dev and preview servers answer /chat/{uniqueId} and /embed/{uniqueId} with chat.html, as the gateway does. */
const chatPage: Connect.NextHandleFunction = (req, _res, next) => {
  if (req.method === 'GET' && req.url && /^\/(chat|embed)\/[^/?]+\/?(\?|$)/.test(req.url)) req.url = '/chat.html';
  next();
};

function publicChatRoutes(): Plugin {
  return {
    name: 'parley-public-chat-routes',
    configureServer(server) {
      server.middlewares.use(chatPage);
    },
    configurePreviewServer(server) {
      server.middlewares.use(chatPage);
    },
  };
}

/**
 * React's entry points, as the page, Testing Library and the Markdown renderer import them, sent to
 * Preact's compatible layer. Only this package's build, dev server and tests use them: the dashboard
 * imports the page's shared components from its own React 19 (web/vite.config.ts).
 */
export const PREACT_COMPAT: Alias[] = [
  { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
  { find: /^react(-dom)?$/, replacement: 'preact/compat' },
];

/** JSX compiled for React's automatic runtime, which PREACT_COMPAT sends to Preact's. */
export const JSX = { runtime: 'automatic', importSource: 'react' } as const;

// widget.js, the loader host pages include (ADR 19): under a stable name (the snippet on owners'
// sites never changes), as one classic script without dependencies, built after the page into the
// same folder.
function widgetScript(): Plugin {
  let folder = outDir;
  return {
    name: 'parley-widget-script',
    apply: 'build',
    configResolved(config) {
      folder = config.build.outDir;
    },
    async closeBundle() {
      await build({
        configFile: false,
        root,
        logLevel: 'warn',
        publicDir: false,
        build: {
          outDir: folder,
          emptyOutDir: false,
          target: 'es2020',
          lib: { entry: 'src/widget/widget.ts', formats: ['iife'], name: 'ParleyWidget', fileName: () => 'widget.js' },
        },
      });
    },
  };
}

export default defineConfig({
  root,
  // No @vitejs/plugin-react: its Fast Refresh drives React's renderer, which the page does not run
  // (in development an edited component reloads the page).
  plugins: [tailwindcss(), publicChatRoutes(), widgetScript()],
  oxc: { jsx: JSX },
  resolve: { alias: PREACT_COMPAT, dedupe: ['preact'] },
  // The web app's favicon, in development; its build copies web/public into web/dist.
  publicDir: '../public',
  build: {
    outDir,
    // The web app's build empties the folder before this build adds the page to it.
    emptyOutDir: false,
    copyPublicDir: false,
    rolldownOptions: {
      input: { chat: fileURLToPath(new URL('chat.html', import.meta.url)) },
      // Preact in a chunk of its own: it changes less often than the page.
      output: { codeSplitting: { groups: [{ name: 'preact', test: /node_modules[\\/]preact[\\/]/ }] } },
    },
  },
  server: {
    // The web app's dev server is on 5173 and sends /chat/* and /embed/* here.
    port: 5174,
    proxy: {
      '/api': gateway,
      '/media': gateway,
    },
  },
});
