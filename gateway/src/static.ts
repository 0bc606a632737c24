// The built web app and uploaded media. Hashed files under /assets never change, so they are cached
// for a year; the HTML pages are revalidated on every load so a new deployment is picked up at once.
// The web app has two pages: index.html (the site and the owner's dashboard) and chat.html (the
// public chat, a separate small bundle), served for /chat/*.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import express, { Router } from 'express';

/** Paths the single-page app must never answer for, even on GET. */
const reserved = /^\/(api|graphql|media|healthz|readyz)(\/|$)/;
/** The public chat page's paths, /chat/{uniqueId}. */
const chatPage = /^\/chat(\/|$)/;

export function mediaRouter(mediaDir: string): Router {
  const router = Router();
  router.use(express.static(mediaDir, { index: false, dotfiles: 'ignore', maxAge: '1h' }));
  router.use((_req, res) => {
    res.status(404).json({ message: 'Not found' });
  });
  return router;
}

export function webAppRouter(distDir: string): Router {
  const router = Router();
  router.use(
    express.static(distDir, {
      index: false,
      setHeaders(res, path) {
        if (path.startsWith(join(distDir, 'assets') + '/')) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        else res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  // Client-side routes (/dashboard, /chatbots/abc, ...) load index.html; /chat/abc loads chat.html.
  router.use(async (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reserved.test(req.path)) return next();
    // Missing files under /assets are real 404s, not pages.
    if (req.path.startsWith('/assets/')) return next();
    const page = chatPage.test(req.path) ? 'chat.html' : 'index.html';
    const found = await stat(join(distDir, page)).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!found) {
      res.status(503).type('text/plain').send('The web app is not built yet. Run `npm run build --workspace web`, then reload.\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    // `root` keeps send's dotfile check to the part below distDir: the checkout itself may live
    // under a dot-directory.
    res.sendFile(page, { root: distDir });
  });
  return router;
}
