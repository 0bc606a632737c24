import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Connect, type Plugin } from 'vite';

// In development the API and the uploaded media live on the gateway; proxying keeps the app
// same-origin, exactly as in production where the gateway serves web/dist itself.
const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';

const root = fileURLToPath(new URL('.', import.meta.url));

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

// widget.js, the loader host pages include (issue 14): its own build after the app's, into the same
// folder under a stable name (the snippet on owners' sites never changes), as one classic script
// without dependencies. Part of every `vite build`, so whatever builds web/dist builds it too.
function widgetScript(): Plugin {
  let outDir = 'dist';
  return {
    name: 'parley-widget-script',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async closeBundle() {
      await build({
        configFile: false,
        root,
        logLevel: 'warn',
        publicDir: false,
        build: {
          outDir,
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
  plugins: [react(), tailwindcss(), publicChatPage(), widgetScript()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        chat: fileURLToPath(new URL('chat.html', import.meta.url)),
      },
      output: {
        // Libraries change less often than the app, so they get their own long-cached chunks.
        codeSplitting: {
          groups: [
            // React alone, so the chat page shares it with the app without pulling in the router.
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
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
