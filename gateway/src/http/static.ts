// The built web app and uploaded media. Hashed files under /assets never change, so they are cached
// for a year; the HTML pages are revalidated on every load so a new deployment is picked up at once.
// The web app has two pages: index.html (the site and the owner's dashboard) and chat.html (the
// public chat, a separate small bundle), served for /chat/* and for /embed/{uniqueId} (the
// same page inside the widget's frame on the owner's site; the app tells the two apart by the path).
// The embed page may be framed by the chatbot's allowed domains only: its Content-Security-Policy's
// frame-ancestors lists them (any site when the list is empty), and it has no X-Frame-Options.
// /widget.js, the loader host pages include with a script tag, is cached for five minutes (a new
// deployment reaches sites soon; the ETag makes the revalidation cheap) and loadable cross-origin.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import express, { Router, type Response } from 'express';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { Clients } from './clients.ts';

/** Paths the single-page app must never answer for, even on GET. */
const reserved = /^\/(api|graphql|media|healthz|readyz)(\/|$)/;
/** The public chat page's paths, /chat/{uniqueId}, and the embed page's, /embed/{uniqueId}. */
const chatPage = /^\/(chat|embed)(\/|$)/;
/** The embed page of one chatbot. */
const embedPage = /^\/embed\/([^/]+)\/?$/;
/** Any path of the embed page (a malformed one is still the embed page, framed by Parley only). */
const embedPaths = /^\/embed(\/|$)/;
/** The widget's loader, as host pages include it. */
const WIDGET_FILE = 'widget.js';
/** How long a browser may use widget.js before asking again (seconds). */
const WIDGET_MAX_AGE_S = 300;

export function mediaRouter(mediaDir: string): Router {
  const router = Router();
  router.use(express.static(mediaDir, { index: false, dotfiles: 'ignore', maxAge: '1h' }));
  router.use((_req, res) => {
    res.status(404).json({ message: 'Not found' });
  });
  return router;
}

export interface WebAppOptions {
  /** The allowed domains of an active chatbot's embed page ([] for anywhere), or null when there is no such chatbot. */
  embedDomains: (uniqueId: string) => Promise<readonly string[] | null>;
}

/** The embed page's domains from the chat service's public lookup (as the embed page itself calls it). */
export function chatbotEmbedDomains(clients: Clients, logger: Logger): WebAppOptions['embedDomains'] {
  return async (uniqueId) => {
    try {
      const { allowedDomains } = await clients.chat.getPublicChatbot({ uniqueId, siteHost: '', embedded: true });
      return allowedDomains;
    } catch (err) {
      // Unknown or inactive: the page shows its own "not found". Anything else is the same to the
      // page (its API calls will say what is wrong), but worth a line in the log.
      if (!(err instanceof ConnectError && err.code === Code.NotFound)) {
        logger.warn({ err: err instanceof Error ? err.message : String(err), uniqueId }, 'embed page: chatbot lookup failed');
      }
      return null;
    }
  };
}

/** A host name as an allowed domain can be (the chatbot service validates them; this keeps the header well-formed regardless). */
const hostName = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/i;

/**
 * The embed page's frame-ancestors sources: Parley's own pages and each allowed domain on any port
 * over either scheme; any site when the list is empty; Parley only when there is no such chatbot.
 */
export function embedFrameAncestors(allowedDomains: readonly string[] | null): string {
  if (allowedDomains === null) return "'self'";
  if (allowedDomains.length === 0) return '*';
  const hosts = allowedDomains.filter((h) => hostName.test(h));
  return ["'self'", ...hosts.flatMap((h) => [`http://${h}:*`, `https://${h}:*`])].join(' ');
}

/** The policy with its frame-ancestors directive replaced (added when it has none); every other directive as it was. */
export function withFrameAncestors(policy: string, sources: string): string {
  const directives = policy
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d && !/^frame-ancestors(\s|$)/i.test(d));
  return [...directives, `frame-ancestors ${sources}`].join(';');
}

/** The chatbot of an embed page path, or undefined when the path names none. */
function embedUniqueId(path: string): string | undefined {
  const raw = embedPage.exec(path)?.[1];
  if (!raw) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The embed page's framing rules, over the security headers' defaults (app.ts). */
async function setEmbedHeaders(res: Response, path: string, opts: WebAppOptions): Promise<void> {
  const uniqueId = embedUniqueId(path);
  const domains = uniqueId === undefined ? null : await opts.embedDomains(uniqueId);
  const policy = res.getHeader('Content-Security-Policy');
  res.setHeader('Content-Security-Policy', withFrameAncestors(typeof policy === 'string' ? policy : '', embedFrameAncestors(domains)));
  // Older browsers obey X-Frame-Options over frame-ancestors; SAMEORIGIN would keep every host page out.
  res.removeHeader('X-Frame-Options');
}

export function webAppRouter(distDir: string, opts: WebAppOptions): Router {
  const router = Router();
  const widgetPath = join(distDir, WIDGET_FILE);
  router.use(
    express.static(distDir, {
      index: false,
      setHeaders(res, path) {
        if (path.startsWith(join(distDir, 'assets') + '/')) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        else if (path === widgetPath) {
          res.setHeader('Cache-Control', `public, max-age=${WIDGET_MAX_AGE_S}`);
          res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
          // Host pages on other origins load it with a plain script tag (a no-cors request).
          res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
        } else res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  // Client-side routes (/dashboard, /chatbots/abc, ...) load index.html; /chat/abc and /embed/abc load chat.html.
  router.use(async (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reserved.test(req.path)) return next();
    // Missing files under /assets, and a widget not built, are real 404s, not pages.
    if (req.path.startsWith('/assets/') || req.path === `/${WIDGET_FILE}`) return next();
    const page = chatPage.test(req.path) ? 'chat.html' : 'index.html';
    const found = await stat(join(distDir, page)).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!found) {
      res.status(503).type('text/plain').send('The web app is not built yet. Run `npm run build --workspace web`, then reload.\n');
      return;
    }
    if (embedPaths.test(req.path)) await setEmbedHeaders(res, req.path, opts);
    res.setHeader('Cache-Control', 'no-cache');
    // `root` keeps send's dotfile check to the part below distDir: the checkout itself may live
    // under a dot-directory.
    res.sendFile(page, { root: distDir });
  });
  return router;
}
