import { describe, expect, it } from 'vitest';
import { uniqueIdFromPath } from '../unique-id-from-path';

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
  ])('%s → "%s"', (path, id) => {
    expect(uniqueIdFromPath(path)).toBe(id);
  });
});
