// The built web app and uploaded media. Hashed files under /assets never change, so they are cached
// for a year; index.html is revalidated on every load so a new deployment is picked up at once.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import express, { Router } from 'express';

/** Paths the single-page app must never answer for, even on GET. */
const reserved = /^\/(api|graphql|media|healthz|readyz)(\/|$)/;

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
  const indexHtml = join(distDir, 'index.html');
  router.use(
    express.static(distDir, {
      index: false,
      setHeaders(res, path) {
        if (path.startsWith(join(distDir, 'assets') + '/')) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        else res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  // Client-side routes (/dashboard, /chat/abc, ...) all load index.html.
  router.use(async (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reserved.test(req.path)) return next();
    // Missing files under /assets are real 404s, not pages.
    if (req.path.startsWith('/assets/')) return next();
    const found = await stat(indexHtml).then((s) => s.isFile(), () => false);
    if (!found) {
      res.status(503).type('text/plain').send('The web app is not built yet. Run `npm run build --workspace web`, then reload.\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    // `root` keeps send's dotfile check to the part below distDir: the checkout itself may live
    // under a dot-directory.
    res.sendFile('index.html', { root: distDir });
  });
  return router;
}
