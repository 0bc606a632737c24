import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Plugin } from 'vite';

// In development the API and the uploaded media live on the gateway; proxying keeps the app
// same-origin, exactly as in production where the gateway serves web/dist itself.
const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';

const root = fileURLToPath(new URL('.', import.meta.url));

/** React in a chunk of its own: it changes less often than the pages. */
const REACT_CHUNK = { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ };

// The public chat page (/chat/{uniqueId}, the widget's /embed/{uniqueId}) and widget.js are a
// package of their own, chat-page/, on preact/compat (ADR 38). This build runs that package's build
// after the app's, into the same folder, so whatever builds web/dist builds the page and the widget too.
const chatPageConfig = fileURLToPath(new URL('chat-page/vite.config.ts', import.meta.url));
const chatPageRuntime = fileURLToPath(new URL('chat-page/node_modules/preact', import.meta.url));

function chatPageBuild(): Plugin {
  let outDir = resolve(root, 'dist');
  return {
    name: 'parley-chat-page-build',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      if (!existsSync(chatPageRuntime)) {
        throw new Error(
          `${chatPageRuntime} is missing: install the chat page with \`npm run setup\` (or \`npm install\` in web/chat-page)`,
        );
      }
      await build({ configFile: chatPageConfig, logLevel: 'warn', build: { outDir } });
    },
  };
}

// In development the chat page has its own server (`npm run dev` in chat-page/, port 5174, on
// preact/compat); the app's server sends its addresses there.
const chatPageDevServer = process.env.CHAT_PAGE_DEV_URL ?? 'http://localhost:5174';

function chatPageRedirect(): Plugin {
  return {
    name: 'parley-chat-page-redirect',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.method !== 'GET' || !req.url || !/^\/(chat|embed)\/[^/?]+\/?(\?|$)/.test(req.url)) return next();
        res.statusCode = 302;
        res.setHeader('Location', new URL(req.url, chatPageDevServer).href);
        res.end();
      });
    },
  };
}

// The chat page's shared components (web/chat-page/src/components) import React and the Markdown
// renderer; in the app they must be the app's React 19 and its copy of the renderer, never the
// chat page's own install beside those files.
const SHARED_WITH_CHAT_PAGE = ['react', 'react-dom', 'markdown-to-jsx'];

export default defineConfig({
  root,
  plugins: [react(), tailwindcss(), chatPageRedirect(), chatPageBuild()],
  resolve: { dedupe: SHARED_WITH_CHAT_PAGE },
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
