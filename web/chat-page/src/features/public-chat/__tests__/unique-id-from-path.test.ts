import { describe, expect, it } from 'vitest';
import { isEmbedPath, uniqueIdFromPath } from '../unique-id-from-path';

describe('uniqueIdFromPath', () => {
  it.each([
    ['/chat/abc123', 'abc123'],
    ['/chat/abc123/', 'abc123'],
    ['/chat/a%20b', 'a b'],
    ['/chat/', ''],
    ['/chat', ''],
    ['/chat/a/b', ''],
    ['/dashboard', ''],
    ['/chat/%E0%A4%A', ''],
    ['/embed/abc123', 'abc123'],
    ['/embed/abc123/', 'abc123'],
    ['/embed/', ''],
    ['/embed/a/b', ''],
    ['/embedded/abc123', ''],
  ])('%s → "%s"', (path, id) => {
    expect(uniqueIdFromPath(path)).toBe(id);
  });
});

describe('isEmbedPath', () => {
  it('is true for the widget iframe only', () => {
    expect(isEmbedPath('/embed/abc123')).toBe(true);
    expect(isEmbedPath('/chat/abc123')).toBe(false);
    expect(isEmbedPath('/embed/')).toBe(false);
  });
});
