// The local mail outbox page (/dev/mail): with no SMTP server configured outside production, auth
// writes each mail to MAIL_OUTBOX_DIR instead of sending it, and a developer reads them here, reset
// links clickable. Never mounted in production, and only answered to a browser on this machine (a
// loopback socket with no proxy in between), since the mails carry working reset links.
import { Router, type Request } from 'express';
import { readOutbox, type OutboxMail } from '@parley/common/mail-outbox.ts';
import { escapeHtml } from '../http/html-page.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const SHOWN = 50;

const isLocal = (req: Request) => LOOPBACK.has(req.socket.remoteAddress ?? '') && !req.headers['x-forwarded-for'];

/** The text part, escaped, with its web addresses made links. */
function linkify(text: string): string {
  return escapeHtml(text).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`);
}

function mailHtml(mail: OutboxMail): string {
  return `<article style="border:1px solid #e5e7eb;border-radius:8px;padding:16px;margin:16px 0;background:#fff">
  <h2 style="margin:0 0 4px;font-size:18px">${escapeHtml(mail.subject)}</h2>
  <p style="margin:0 0 12px;color:#6b7280;font-size:13px">To ${escapeHtml(mail.to.join(', '))} · from ${escapeHtml(mail.from)} · ${escapeHtml(mail.date)}</p>
  <pre style="white-space:pre-wrap;font:14px/1.5 system-ui,sans-serif;margin:0">${linkify(mail.text)}</pre>
</article>`;
}

export function devMailRoutes(outboxDir: string): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    if (!isLocal(req)) {
      res.status(404).json({ message: 'Not found' });
      return;
    }
    const mails = await readOutbox(outboxDir, { limit: SHOWN });
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local mail outbox — Parley</title></head>
<body style="font-family:system-ui,sans-serif;background:#f9fafb;margin:0;padding:24px;color:#111827">
<main style="max-width:760px;margin:0 auto">
<h1 style="font-size:24px;margin:0 0 4px">Local mail outbox</h1>
<p style="color:#6b7280;margin:0">No SMTP server is configured, so Parley writes its mails to <code>${escapeHtml(outboxDir)}</code>. Newest first; the latest ${SHOWN} are shown.</p>
${mails.length ? mails.map(mailHtml).join('\n') : '<p style="margin-top:24px">No mail yet.</p>'}
</main></body></html>`);
  });
  return router;
}
