// The gateway's few server-rendered pages (test-mode checkout and plan management, the local mail
// outbox): one escaping rule, one page shell and the shared styles. Inline styles only: the CSP
// forbids inline scripts and these pages need none.
import type { Request, Response } from 'express';
import type { Logger } from '@parley/common/logger.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { mapError } from './errors.ts';
import { isCleanText } from './input.ts';

export const TEST_MODE_LABEL = 'Test mode — no real payment';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export const h1 = 'font-size:1.375rem;margin:0 0 .75rem';
export const button =
  'display:inline-block;border:0;border-radius:.5rem;padding:.75rem 1.5rem;font-size:1rem;font-weight:600;cursor:pointer';

/** The amber badge every test-mode page starts with. */
export const testModeBadge = () =>
  `<p style="display:inline-block;margin:0 0 1rem;padding:.25rem .75rem;border-radius:999px;background:#fef3c7;color:#92400e;font-weight:700">${escapeHtml(TEST_MODE_LABEL)}</p>`;

/** A small centred card page. */
export function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} — Parley</title></head>
<body style="margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#111827">
<main style="background:#fff;border-radius:1rem;box-shadow:0 10px 30px rgba(0,0,0,.08);padding:2rem;max-width:28rem;width:calc(100% - 2rem)">
${body}
</main></body></html>`,
    );
}

/**
 * A test-mode page's session (its path's `sessionId`) from billing, or undefined with a page already
 * sent: `notFound` when the id is malformed, unknown, expired or billing is not in test mode, else
 * a page titled `unavailable` with the mapped message.
 */
export async function testSession<T>(
  req: Request,
  res: Response,
  logger: Logger,
  load: (sessionId: string) => Promise<T>,
  pages: { notFound: (res: Response) => void; unavailable: string },
): Promise<T | undefined> {
  const sessionId = String(req.params.sessionId);
  // No session id holds a control character; billing would refuse one (PostgreSQL refuses NUL).
  if (!isCleanText(sessionId)) {
    pages.notFound(res);
    return undefined;
  }
  try {
    return await load(sessionId);
  } catch (err) {
    if (err instanceof ConnectError && [Code.NotFound, Code.FailedPrecondition, Code.InvalidArgument].includes(err.code)) {
      pages.notFound(res);
      return undefined;
    }
    const { status, message } = mapError(err, logger);
    page(res, status, pages.unavailable, `<h1 style="${h1}">${escapeHtml(pages.unavailable)}</h1><p>${escapeHtml(message)}</p>`);
    return undefined;
  }
}
