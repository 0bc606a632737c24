// One web page as knowledge: fetched safely, its main content kept (menus and footers left out by
// extractMainContent) and its links returned for the crawler. Only HTML and plain text or Markdown
// pages are read; anything else is refused in the owner's words.
import { extractMainContent } from './extract-html.ts';
import { normalizeText, oneLineTitle } from './normalize-text.ts';
import { safeFetch, type WebFetchOptions } from './safe-fetch.ts';
import { SourceError } from './source-error.ts';

export const UNSUPPORTED_CONTENT = 'Unsupported content type';
import { NO_TEXT } from './web-source.ts';

export { NO_TEXT };

export interface WebPage {
  /** The final address, after redirects. */
  url: string;
  title: string;
  text: string;
  /** Absolute addresses of the page's links (empty for text pages). */
  links: string[];
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);

export async function fetchPage(url: string, opts: WebFetchOptions): Promise<WebPage> {
  const res = await safeFetch(url, opts);
  const kind = pageKind(res.contentType, res.body);
  if (!kind) throw new SourceError(UNSUPPORTED_CONTENT);
  const source = decode(res.body, res.charset ?? (kind === 'html' ? metaCharset(res.body) : undefined));
  const page =
    kind === 'html'
      ? { url: res.url, ...extractMainContent(source, res.url) }
      : { url: res.url, title: textTitle(source, res.url), text: normalizeText(source), links: [] };
  if (!page.text.trim()) throw new SourceError(NO_TEXT);
  return page;
}

/** HTML or text by the declared type; a page sent without one is read as HTML when it looks like it. */
export function pageKind(contentType: string, body: Buffer): 'html' | 'text' | undefined {
  if (HTML_TYPES.has(contentType)) return 'html';
  if (TEXT_TYPES.has(contentType)) return 'text';
  if (!contentType && /^\s*</.test(decode(body.subarray(0, 64)).replace(/^\uFEFF/, ''))) return 'html';
  return undefined;
}

/** Bytes to text in the page's charset (UTF-8 when unknown or unsupported); a byte-order mark is dropped. */
export function decode(body: Buffer, charset = 'utf-8'): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** The charset an HTML page declares in a <meta> tag near its start, as browsers look for it. */
function metaCharset(body: Buffer): string | undefined {
  return body
    .subarray(0, 1024)
    .toString('latin1')
    .match(/<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i)?.[1];
}

/** A text page's title: its first Markdown heading, else the file name in its address, else the site's name. */
function textTitle(text: string, url: string): string {
  const heading = text.match(/^#{1,6}\s+(.+?)\s*#*\s*$/m)?.[1];
  if (heading) return oneLineTitle(heading);
  const { pathname, hostname } = new URL(url);
  const name = pathname.split('/').filter(Boolean).pop();
  try {
    return name ? decodeURIComponent(name) : hostname;
  } catch {
    return name ?? hostname;
  }
}
