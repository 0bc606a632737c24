import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPage, NO_TEXT, pageKind, UNSUPPORTED_CONTENT } from '../fetch-page.ts';
import { ADDRESS_NOT_ALLOWED, type WebFetchOptions } from '../safe-fetch.ts';
import { sampleSite, startTestSite, type TestSite } from './test-site.ts';

const local: WebFetchOptions = { allowPrivate: true, timeoutMs: 5_000, maxBytes: 1024 * 1024 };

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite(sampleSite());
});
afterAll(() => site?.close());

describe('fetchPage', () => {
  it('keeps an HTML page’s main content, without its menu and footer, and lists its links', async () => {
    const page = await fetchPage(site.url('/'), local);
    expect(page.url).toBe(site.url('/'));
    expect(page.title).toContain('Welcome to Example Corp');
    expect(page.text).toContain('Example Corp builds garden robots that mow, weed and water');
    expect(page.text).toContain('six hours on one charge');
    expect(page.text).not.toContain('Footer');
    expect(page.text).not.toContain('Cookie settings');
    expect(page.text).not.toContain('Menu /pricing');
    expect(page.links).toEqual(expect.arrayContaining([site.url('/about'), site.url('/pricing'), site.url('/docs/getting-started')]));
  });

  it('reports the address it ended at after redirects', async () => {
    const page = await fetchPage(site.url('/r1'), local);
    expect(page.url).toBe(site.url('/about'));
    expect(page.text).toContain('founded in 2019');
  });

  it('reads a page in the charset it declares', async () => {
    const page = await fetchPage(site.url('/latin1'), local);
    expect(page.text).toContain('Crème brûlée à volonté, et un café offert');
    expect(page.title).toContain('Café');
  });

  it('reads plain text and Markdown as they are', async () => {
    const notes = await fetchPage(site.url('/notes.txt'), local);
    expect(notes).toEqual({
      url: site.url('/notes.txt'),
      title: 'notes.txt',
      text: 'Opening hours: 9 to 5.\nClosed on Sundays.',
      links: [],
    });
    const guide = await fetchPage(site.url('/guide.md'), local);
    expect(guide.title).toBe('Robot guide');
    expect(guide.text).toContain('Clean the blades monthly.');
  });

  it(`refuses other content: "${UNSUPPORTED_CONTENT}"`, async () => {
    await expect(fetchPage(site.url('/picture'), local)).rejects.toThrow(UNSUPPORTED_CONTENT);
  });

  it(`a page with nothing to read: "${NO_TEXT}"`, async () => {
    await expect(fetchPage(site.url('/empty'), local)).rejects.toThrow(NO_TEXT);
  });

  it('passes fetch refusals and failures on', async () => {
    await expect(fetchPage(site.url('/about'), { ...local, allowPrivate: false })).rejects.toThrow(ADDRESS_NOT_ALLOWED);
    await expect(fetchPage(site.url('/nowhere'), local)).rejects.toThrow('The page could not be fetched (HTTP 404)');
  });
});

describe('pageKind', () => {
  it('goes by the declared type, and sniffs HTML only when there is none', () => {
    expect(pageKind('text/html', Buffer.from(''))).toBe('html');
    expect(pageKind('application/xhtml+xml', Buffer.from(''))).toBe('html');
    expect(pageKind('text/markdown', Buffer.from('<b>'))).toBe('text');
    expect(pageKind('', Buffer.from('\uFEFF  <!doctype html><p>x'))).toBe('html');
    expect(pageKind('', Buffer.from('plain words'))).toBeUndefined();
    expect(pageKind('application/pdf', Buffer.from('%PDF-1.7'))).toBeUndefined();
    expect(pageKind('application/json', Buffer.from('{}'))).toBeUndefined();
  });
});
