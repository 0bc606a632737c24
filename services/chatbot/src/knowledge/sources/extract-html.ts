// The readable part of an HTML page (an uploaded file or a fetched web page): Readability keeps the
// article and drops menus, headers and footers; when it finds nothing, the body's text without them.
// `links` lists every absolute http(s) address the page points to, for the crawler.
// Work is linear in the document's size except Readability's, which is bounded (MAX_ELEMENTS, MAX_DEPTH):
// callers pass at most a few megabytes (web pages: KNOWLEDGE_FETCH_MAX_BYTES, 5 MB by default;
// files: inside the parse worker, under its time and memory limits).
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { normalizeText, oneLineTitle } from './normalize-text.ts';

export interface ExtractedPage {
  title: string;
  text: string;
  links: string[];
}

// Readability scores every element in several passes, slowly on linkedom and worse than linearly with
// depth (1,000 nested divs: a minute). Past these bounds a page gets the body-text fallback instead.
const MAX_ELEMENTS = 10_000;
const MAX_DEPTH = 100;
/** A page pointing to more addresses than this is a link farm: the rest are ignored. */
const MAX_LINKS = 5_000;

// Never text: code, styles, embedded objects, and (in the fallback) the page's navigation and furniture.
const SKIPPED = new Set([
  'head',
  'title',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'canvas',
  'select',
  'button',
]);
const FURNITURE = new Set(['nav', 'header', 'footer', 'aside', 'form', 'dialog']);
const FURNITURE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar']);
// Elements that stand apart by a blank line, and elements on a line of their own; table cells are separated by a space.
const LINE = 1;
const PARAGRAPH = 2;
const PARAGRAPHS = new Set('article blockquote body dl figure h1 h2 h3 h4 h5 h6 hr main ol p pre section table ul'.split(' '));
const LINES = new Set('address dd details div dt fieldset figcaption li summary tbody tfoot thead tr'.split(' '));

// linkedom's DOM is typed loosely; these are the parts used here.
interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
  getAttribute?(name: string): string | null;
}

export function extractMainContent(html: string, pageUrl?: string): ExtractedPage {
  const document = parseDocument(html);
  const links = documentLinks(document, pageUrl);
  // A <title> outside <head> (in a page without one) still names the page.
  const documentTitle = document.title || document.querySelector('title, h1')?.textContent || '';
  let title = '';
  let text = '';
  const readable = fitsReadability(document.documentElement as unknown as DomNode);
  if (readable) {
    try {
      const article = new Readability(document as unknown as Document).parse();
      title = article?.title ?? '';
      if (article?.content) text = blockText(parseDocument(article.content).body as unknown as DomNode, false);
    } catch {
      // Markup Readability cannot handle: the body's text below.
    }
  }
  // Readability changes the document it reads: the fallback reads a fresh copy.
  if (!text) text = blockText((readable ? parseDocument(html) : document).body as unknown as DomNode, true);
  return { title: oneLineTitle(title || documentTitle), text, links };
}

/** linkedom needs an <html> element; a fragment (or a page without one) is wrapped in a document. */
function parseDocument(html: string) {
  const parsed = parseHTML(html).document;
  if (parsed.documentElement?.nodeName === 'HTML' && parsed.body) return parsed;
  return parseHTML(`<!doctype html><html><head></head><body>${html.replace(/^\s*<!doctype[^>]*>/i, '')}</body></html>`).document;
}

function documentLinks(document: ReturnType<typeof parseDocument>, pageUrl?: string): string[] {
  const base = resolve(document.querySelector('base[href]')?.getAttribute('href') ?? '', pageUrl) ?? pageUrl;
  const links = new Set<string>();
  for (const anchor of document.querySelectorAll('a[href], area[href]')) {
    if (links.size >= MAX_LINKS) break;
    const href = resolve(anchor.getAttribute('href') ?? '', base);
    if (href) links.add(href);
  }
  return [...links];
}

/** An absolute http(s) address without its fragment, or null. */
function resolve(href: string, base?: string): string | null {
  if (!href.trim()) return null;
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url.href;
}

/** Whether a page is within Readability's bounds (MAX_ELEMENTS, MAX_DEPTH); stops counting past them. */
function fitsReadability(root: DomNode): boolean {
  let elements = 0;
  const stack: [DomNode, number][] = [[root, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (++elements > MAX_ELEMENTS || depth > MAX_DEPTH) return false;
    for (let child = node.firstChild; child; child = child.nextSibling) if (child.nodeType === 1) stack.push([child, depth + 1]);
  }
  return true;
}

/** The text of an element, a line per block; iterative, so deeply nested markup cannot overflow the stack. */
function blockText(root: DomNode | null, skipFurniture: boolean): string {
  if (!root) return '';
  // Text, and breaks (LINE, PARAGRAPH): adjacent breaks merge into the larger one.
  const out: (string | number)[] = [];
  const addBreak = (kind: number) => {
    const last = out.length - 1;
    if (typeof out[last] === 'number') out[last] = Math.max(out[last] as number, kind);
    else out.push(kind);
  };
  // Entries are nodes to visit, or what to add once an element's children are done.
  const stack: (DomNode | number | string)[] = [root];
  let preDepth = 0;
  while (stack.length) {
    const item = stack.pop()!;
    if (typeof item === 'number') addBreak(item);
    else if (item === '</pre>') preDepth--;
    else if (typeof item === 'string') out.push(item);
    else if (item.nodeType === 3) {
      const value = preDepth ? (item.textContent ?? '') : (item.textContent ?? '').replace(/\s+/g, ' ');
      // Whitespace between blocks is layout, not text.
      if (value.trim() || (out.length && typeof out[out.length - 1] === 'string')) out.push(value);
    } else if (item.nodeType === 1) {
      const tag = item.nodeName.toLowerCase();
      if (SKIPPED.has(tag) || (skipFurniture && isFurniture(item, tag))) continue;
      if (tag === 'br') {
        addBreak(LINE);
        continue;
      }
      const kind = PARAGRAPHS.has(tag) ? PARAGRAPH : LINES.has(tag) ? LINE : 0;
      if (kind) addBreak(kind);
      if (tag === 'pre') {
        preDepth++;
        stack.push('</pre>');
      }
      if (kind) stack.push(kind);
      else if (tag === 'td' || tag === 'th') stack.push(' ');
      // linkedom builds childNodes afresh on every read: walk the siblings instead.
      const children: DomNode[] = [];
      for (let child = item.firstChild; child; child = child.nextSibling) children.push(child);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return normalizeText(out.map((part) => (part === LINE ? '\n' : part === PARAGRAPH ? '\n\n' : part)).join(''));
}

function isFurniture(element: DomNode, tag: string): boolean {
  if (FURNITURE.has(tag)) return true;
  const role = element.getAttribute?.('role');
  return !!role && FURNITURE_ROLES.has(role.toLowerCase());
}
