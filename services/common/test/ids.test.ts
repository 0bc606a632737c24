// The one UUID rule: in either case, nothing around it (Postgres refuses a uuid with spaces).
import { describe, expect, it } from 'vitest';
import { isUuid } from '../src/ids.ts';

const UUID = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';

describe('isUuid', () => {
  it('tells UUIDs from other strings, in either case', () => {
    expect(isUuid(UUID)).toBe(true);
    expect(isUuid(UUID.toUpperCase())).toBe(true);
    for (const other of [
      '',
      'not-a-uuid',
      ` ${UUID}`,
      `${UUID}\n`,
      `{${UUID}}`,
      UUID.replaceAll('-', ''),
      `${UUID}0`,
      'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    ])
      expect(isUuid(other), JSON.stringify(other)).toBe(false);
  });
});
