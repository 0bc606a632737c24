// docs/glossary.md names one spelling per idea and, in its "Retired spellings" column, the spellings
// that idea no longer goes by. These helpers read that column and find a retired spelling in a text;
// glossary.test.ts runs them over every tracked source file.
import { execFileSync } from 'node:child_process';
import { root } from './repo.ts';

/** The cells of the glossary's table, by column heading, one record per row. */
export function glossaryRows(markdown: string): Record<string, string>[] {
  const lines = markdown.split('\n').filter((line) => line.startsWith('|'));
  const cells = (line: string) =>
    line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
  const [heading, , ...rows] = lines;
  if (!heading) return [];
  const names = cells(heading);
  return rows.map((row) => Object.fromEntries(cells(row).map((cell, i) => [names[i], cell])));
}

/** The spellings the glossary retires: every `code` span of its "Retired spellings" column. */
export function retiredSpellings(markdown: string): string[] {
  const spellings = glossaryRows(markdown).flatMap((row) => [...(row['Retired spellings'] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]));
  return [...new Set(spellings)];
}

/** Characters that continue an identifier: a spelling counts only as a whole name, not inside a longer one. */
const NAME_CHAR = 'A-Za-z0-9_$';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each place a retired spelling occurs in `text` as a whole name (case-sensitive), with its line number. */
export function findRetired(text: string, spellings: readonly string[]): { spelling: string; line: number }[] {
  if (spellings.length === 0) return [];
  const pattern = new RegExp(`(?<![${NAME_CHAR}])(?:${spellings.map(escape).join('|')})(?![${NAME_CHAR}])`, 'g');
  const found: { spelling: string; line: number }[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(pattern)) found.push({ spelling: m[0], line: i + 1 });
  });
  return found;
}

/** Tracked files that are neither generated, nor lockfiles, nor applied migrations' SQL, nor the glossary itself. */
export function sourceFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(Boolean);
  return tracked.filter(
    (path) =>
      path !== 'docs/glossary.md' &&
      !/(^|\/)package-lock\.json$|\.lock$/.test(path) &&
      !/(^|\/)migrations\/.*\.sql$/.test(path) &&
      !/^proto\/gen\/|^web\/src\/gql\/|\/src\/generated\//.test(path),
  );
}
