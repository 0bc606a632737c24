// What a web knowledge source is checked against before anything is fetched: the owner's address
// and the crawl's page limits, and the page error the ingest job reports. Kept apart from the
// fetcher and the HTML parsers (safe-fetch.ts, fetch-page.ts, crawl.ts: undici, linkedom,
// Readability, fast-xml-parser), which the service loads only when it first fetches a page.
import { SourceError } from './source-error.ts';

export const INVALID_URL = 'Enter a valid http or https address';
export const NO_TEXT = 'No text found on this page';
export const DEFAULT_MAX_PAGES = 20;
export const MAX_PAGES_LIMIT = 100;

/** The owner's address, trimmed and without its fragment; anything but an http(s) address with a host is refused. */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SourceError(INVALID_URL);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw new SourceError(INVALID_URL);
  url.hash = '';
  return url.href;
}
