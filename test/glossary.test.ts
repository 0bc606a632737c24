// One word per idea: no tracked source file may use a spelling docs/glossary.md retires.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRetired, glossaryRows, retiredSpellings, sourceFiles } from './glossary.ts';
import { read, root } from './repo.ts';

const glossary = read('docs/glossary.md');
const retired = retiredSpellings(glossary);

describe('the glossary matcher', () => {
  const sample = [
    '| Word | What it is | Spelling in code | Contract spellings that stay | Retired spellings |',
    '|---|---|---|---|---|',
    '| thing | a thing renamed | `NewThing` | — | `OldThing`, `oldHelper` |',
    '| plan limit | the free plan allows one chatbot | `planLimitError` | `limitReached` | `OLD_HEADER` |',
    '| chatbot | one bot | `Chatbot` | `_id` (REST, a \\| in a cell) | — |',
  ].join('\n');

  it('reads the retired spellings column', () => {
    expect(glossaryRows(sample)).toHaveLength(3);
    expect(retiredSpellings(sample)).toEqual(['OldThing', 'oldHelper', 'OLD_HEADER']);
  });

  it('finds a retired spelling as a whole name, with its line', () => {
    const text = "import type { OldThing } from './old-thing.ts';\nconst a = 1;\nawait oldHelper(deps);";
    expect(findRetired(text, ['OldThing', 'oldHelper'])).toEqual([
      { spelling: 'OldThing', line: 1 },
      { spelling: 'oldHelper', line: 3 },
    ]);
  });

  it('ignores a retired spelling inside a longer name, and other cases', () => {
    const text = 'SPEND_OLD_HEADER; OldThings; MyOldThing; oldthing; old-thing.ts';
    expect(findRetired(text, ['OLD_HEADER', 'OldThing'])).toEqual([]);
    expect(findRetired('x.OLD_HEADER', ['OLD_HEADER'])).toEqual([{ spelling: 'OLD_HEADER', line: 1 }]);
  });
});

describe('docs/glossary.md', () => {
  it('retires spellings', () => {
    expect(retired.length).toBeGreaterThan(10);
  });

  it('lists the files it checks, source and tests included', () => {
    const files = sourceFiles();
    expect(files).toContain('services/chat/src/public-chat/send-message.ts');
    expect(files).not.toContain('docs/glossary.md');
    expect(files.some((f) => f.endsWith('.sql'))).toBe(false);
  });

  it('no tracked source file uses a retired spelling', () => {
    const found = sourceFiles()
      .filter((path) => existsSync(join(root, path)))
      .flatMap((path) => {
        const text = read(path);
        return text.includes('\0') ? [] : findRetired(text, retired).map(({ spelling, line }) => `${path}:${line}: ${spelling}`);
      });
    expect(found).toEqual([]);
  });
});
