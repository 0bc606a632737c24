// The repository's documents stand alone: nothing in it refers to a numbered issue or a section of a
// specification kept elsewhere (a reason is written where it is needed, in an ADR or in
// docs/product.md), every relative link in the docs resolves, code comments that point at a section of
// docs/product.md name one that exists, and the ADR index lists every ADR.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exists, read, root } from './repo.ts';

/** Every tracked file, as git sees the work tree (files deleted but not yet committed are left out). */
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && exists(f));

const LOCKFILE = /(^|\/)package-lock\.json$/;
const BINARY = /\.(png|jpe?g|gif|ico|webp|pdf|docx|zip|gz|woff2?|ttf|eot)$/i;

/**
 * Files that keep such a reference because they cannot change: applied migrations are checksummed by
 * services/common/src/migrations.ts, which refuses to start on an applied migration whose file changed.
 */
const CANNOT_CHANGE = new Map<string, string>(
  [
    'services/chat/prisma/migrations/20261125160000_analytics/migration.sql',
    'services/chat/prisma/migrations/20261125163000_message_answered/migration.sql',
    'services/chat/prisma/migrations/20261125170000_analytics_visitor_years/migration.sql',
    'services/chat/prisma/migrations/20261125180000_conversation_visitor/migration.sql',
    'services/chat/prisma/migrations/20261125210000_deleted_chatbots/migration.sql',
    'services/chatbot/prisma/migrations/20261125150000_knowledge_sources/migration.sql',
    'services/chatbot/prisma/migrations/20261125180000_embedding/migration.sql',
  ].map((f) => [f, 'an applied migration: its checksum is verified at start-up']),
);

// Built from parts so that this file does not match itself.
const SECTION_SIGN = String.fromCharCode(0xa7);
const OUTSIDE_REFERENCES: [string, RegExp][] = [
  ['a section of an outside specification', new RegExp(`\\bspec(ification)?\\s*${SECTION_SIGN}`, 'i')],
  ['a numbered issue', new RegExp(['\\bissues?', '\\s+#?\\d+'].join(''), 'i')],
  ['an issue by number sign', new RegExp(['\\b(issue|ticket)', '\\s*#\\d+'].join(''), 'i')],
  ['the product specification kept outside', new RegExp(['\\bproduct[- ]', 'spec\\b'].join(''), 'i')],
  ['a document beside the repository', new RegExp(['\\.\\./', 'shared/'].join(''))],
];

/** The first outside reference in a text, with its line, or undefined. */
export function outsideReference(text: string): { line: number; what: string; text: string } | undefined {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    for (const [what, pattern] of OUTSIDE_REFERENCES) {
      if (pattern.test(lines[i])) return { line: i + 1, what, text: lines[i].trim() };
    }
  }
  return undefined;
}

const textFiles = tracked.filter((f) => !LOCKFILE.test(f) && !BINARY.test(f));
const readText = (f: string) => {
  const text = read(f);
  return text.includes('\0') ? '' : text;
};

describe('references to documents outside the repository', () => {
  it('recognises what it must refuse, and lets ordinary words through', () => {
    expect(outsideReference(`see spec ${SECTION_SIGN}3`)?.what).toBe('a section of an outside specification');
    expect(outsideReference(`(Spec ${SECTION_SIGN}9: 30 and 70 percent)`)).toBeDefined();
    expect(outsideReference(['(iss', 'ue 14)'].join(''))?.what).toBe('a numbered issue');
    expect(outsideReference([`since Iss`, `ues 13 and 14`].join(''))).toBeDefined();
    expect(outsideReference(['fixes iss', 'ue #12'].join(''))).toBeDefined();
    expect(outsideReference(['the product', ' spec names it'].join(''))).toBeDefined();
    expect(outsideReference(['see ../sha', 'red/docs/conventions.md'].join(''))).toBeDefined();
    expect(outsideReference('the server issues unguessable ids; colour #112233; e2e/widget.spec.ts')).toBeUndefined();
  });

  it.each(textFiles.filter((f) => !CANNOT_CHANGE.has(f)))('%s has none', (file) => {
    const found = outsideReference(readText(file));
    expect(found, found && `${file}:${found.line} cites ${found.what}: ${found.text}`).toBeUndefined();
  });

  it.each([...CANNOT_CHANGE])('%s is listed because it still has one and cannot change (%s)', (file) => {
    expect(tracked, `${file} is gone: take it off the list`).toContain(file);
    expect(outsideReference(readText(file)), `${file} no longer has one: take it off the list`).toBeDefined();
  });
});

const DOCS = tracked.filter((f) => f === 'README.md' || f === 'CONTRIBUTING.md' || /^docs\/.*\.md$/.test(f));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const headingsOf = (markdown: string) => [...markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)].map((m) => m[1].replace(/`/g, ''));

/** Markdown without its fenced code blocks. */
const withoutFences = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');
/** Markdown without its code (fenced blocks and inline spans), where brackets are not links. */
const withoutCode = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, '');

/** The relative links of a Markdown text: `[text](target)` outside code, without external URLs. */
const relativeLinks = (markdown: string) =>
  [...withoutCode(markdown).matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));

describe('links in the docs', () => {
  it('finds the docs and their links', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/product.md', 'docs/architecture.md']));
    expect(relativeLinks(read('docs/adr/README.md')).length).toBeGreaterThan(20);
  });

  it.each(DOCS)('every relative link in %s resolves inside the repository', (file) => {
    const markdown = read(file);
    for (const target of relativeLinks(markdown)) {
      const [path, anchor] = target.split('#');
      const resolved = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
      expect(relative(root, join(root, resolved)).startsWith('..'), `${file} links outside the repository: ${target}`).toBe(false);
      expect(exists(resolved), `${file} links to ${target}, which does not exist`).toBe(true);
      if (anchor && resolved.endsWith('.md')) {
        expect(headingsOf(read(resolved)).map(anchorOf), `${file} links to ${target}: no such heading`).toContain(anchor);
      }
    }
  });
});

describe('paths named in the docs', () => {
  // The docs name files as `path/from/the/root`; each must be there. What a build or an install writes
  // (dist, node_modules) is not, and a path with a placeholder (<name>, {id}, *) names no one file.
  const named = DOCS.flatMap((file) =>
    [...withoutFences(read(file)).matchAll(/`((?:docs|services|gateway|web|proto|scripts|test|tools|bench|e2e)\/[^`\s]+)`/g)]
      .map((m) => m[1].replace(/[:#].*$/, ''))
      .filter((path) => !/[<>{}*…]|(^|\/)(dist|node_modules)(\/|$)/.test(path))
      .map((path) => ({ file, path })),
  );

  it('finds them', () => {
    expect(named.length).toBeGreaterThan(50);
  });

  it('every one exists', () => {
    expect(named.filter(({ path }) => !exists(path)).map(({ file, path }) => `${file}: ${path}`)).toEqual([]);
  });
});

describe('pointers into docs/product.md', () => {
  const headings = headingsOf(read('docs/product.md'));
  const pointers = textFiles.flatMap((file) =>
    [...readText(file).matchAll(/docs\/product\.md(?:,\s*|\s*\()([A-Z][^\n]*)/g)].map((m) => ({ file, rest: m[1] })),
  );

  it('has stable sections that the code points at', () => {
    expect(headings).toEqual(expect.arrayContaining(['Public chat', 'The widget', 'Visitor limits', 'Plans, credit and checkout']));
    expect(pointers.length).toBeGreaterThan(50);
  });

  it('every pointer names a section that exists', () => {
    // A pointer reads "docs/product.md, <section>" or "docs/product.md (<section>)"; a comment may wrap
    // the name onto its next line, so a name cut by the end of its line only has to begin a section.
    const unknown = pointers.filter(({ rest }) => {
      const line = rest.trimEnd();
      return !headings.some((h) => line.startsWith(h) || h.startsWith(line));
    });
    expect(unknown.map(({ file, rest }) => `${file}: ${rest}`)).toEqual([]);
  });
});

describe('the ADR index', () => {
  const index = read('docs/adr/README.md');
  const records = readdirSync(join(root, 'docs/adr')).filter((f) => /^\d{4}-.+\.md$/.test(f));

  it('finds the records', () => {
    expect(records.length).toBeGreaterThan(20);
  });

  it.each(records)('lists %s with its title', (file) => {
    expect(index, `docs/adr/README.md does not link ${file}`).toContain(`(${file})`);
    const title = read(`docs/adr/${file}`)
      .split('\n')[0]
      .replace(/^#\s*\d+\.\s*/, '');
    expect(index, `docs/adr/README.md does not give the title of ${file}`).toContain(title);
  });
});
