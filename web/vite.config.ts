import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Connect, type InlineConfig, type Plugin } from 'vite';

// In development the API and the uploaded media live on the gateway; proxying keeps the app
// same-origin, exactly as in production where the gateway serves web/dist itself.
const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';

const root = fileURLToPath(new URL('.', import.meta.url));

/** React in a chunk of its own: it changes less often than the pages. */
const REACT_CHUNK = { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ };

// Two pages: the app (index.html) and the public chat (chat.html), which must stay small and free
// of the dashboard's code. The gateway serves chat.html for /chat/* and for the widget's iframe,
// /embed/* (issue 14); the dev and preview servers do the same here.
const chatPage: Connect.NextHandleFunction = (req, _res, next) => {
  if (req.method === 'GET' && req.url && /^\/(chat|embed)\/[^/?]+\/?(\?|$)/.test(req.url)) req.url = '/chat.html';
  next();
};

function publicChatPage(): Plugin {
  return {
    name: 'parley-public-chat-page',
    configureServer(server) {
      server.middlewares.use(chatPage);
    },
    configurePreviewServer(server) {
      server.middlewares.use(chatPage);
    },
  };
}

/**
 * A build of its own after the app's, into the same folder (not emptied), with what `options` gives
 * for the folder. Part of every `vite build`, so whatever builds web/dist builds these too.
 */
function buildAfterApp(name: string, options: (outDir: string) => InlineConfig): Plugin {
  let outDir = 'dist';
  return {
    name,
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async closeBundle() {
      await build({ configFile: false, root, logLevel: 'warn', publicDir: false, ...options(outDir) });
    },
  };
}

// The public chat page (chat.html), with React 18 instead of the app's React 19: visitors download
// its react-dom, about 24 KB gzip smaller, which brings the page within its 60 KB budget (issue 14,
// ADR 21). React 18 comes from its own install in chat-runtime/ (scripts/run.sh installs it), so the
// app's dependencies are unchanged; the page's code uses nothing React 19 added
// (scripts/check-bundle-size.ts fails `npm test` otherwise). In development (`vite`) the page runs
// on the app's React 19.
const chatRuntime = fileURLToPath(new URL('chat-runtime/node_modules', import.meta.url));

const publicChatBuild = buildAfterApp('parley-public-chat-build', (outDir) => {
  if (!existsSync(`${chatRuntime}/react-dom`)) {
    throw new Error(`${chatRuntime} has no React: install it with \`npm run setup\` (or \`npm install\` in web/chat-runtime)`);
  }
  return {
    plugins: [react(), tailwindcss()],
    resolve: {
      alias: [
        { find: /^react(\/.*)?$/, replacement: `${chatRuntime}/react$1` },
        { find: /^react-dom(\/.*)?$/, replacement: `${chatRuntime}/react-dom$1` },
      ],
    },
    build: {
      outDir,
      emptyOutDir: false,
      rolldownOptions: {
        input: { chat: fileURLToPath(new URL('chat.html', import.meta.url)) },
        output: { codeSplitting: { groups: [REACT_CHUNK] } },
      },
    },
  };
});

// widget.js, the loader host pages include (issue 14): under a stable name (the snippet on owners'
// sites never changes), as one classic script without dependencies.
const widgetScript = buildAfterApp('parley-widget-script', (outDir) => ({
  build: {
    outDir,
    emptyOutDir: false,
    target: 'es2020',
    lib: { entry: 'src/widget/widget.ts', formats: ['iife'], name: 'ParleyWidget', fileName: () => 'widget.js' },
  },
}));

export default defineConfig({
  root,
  plugins: [react(), tailwindcss(), publicChatPage(), publicChatBuild, widgetScript],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
      },
      output: {
        // Libraries change less often than the app, so they get their own long-cached chunks.
        codeSplitting: {
          groups: [
            REACT_CHUNK,
            { name: 'router', test: /node_modules[\\/](react-router|react-router-dom)[\\/]/ },
            { name: 'apollo', test: /node_modules[\\/](@apollo|graphql|rxjs|@wry|optimism|tslib)[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': gateway,
      '/graphql': gateway,
      '/media': gateway,
    },
  },
});
