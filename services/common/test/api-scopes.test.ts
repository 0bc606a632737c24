// The developer API's scopes: one list, each scope named like a permission and described in one
// sentence for the API's documentation.
import { describe, expect, it } from 'vitest';
import { API_SCOPE_NAMES, API_SCOPES, isApiScope } from '../src/api-scopes.ts';

describe('API scopes', () => {
  it('are the list the developer API documents, in its order', () => {
    expect(API_SCOPE_NAMES).toEqual([
      'chat',
      'chatbots:read',
      'chatbots:write',
      'knowledge:write',
      'conversations:read',
      'usage:read',
      'webhooks:write',
      'mcp',
    ]);
  });

  it('each have a one-line description', () => {
    for (const name of API_SCOPE_NAMES) {
      expect(name).toMatch(/^[a-z]+(:(read|write))?$/);
      expect(API_SCOPES[name]).toMatch(/^[A-Z][^\n]{10,120}\.$/);
    }
  });

  it('recognise only their own names', () => {
    expect(isApiScope('chat')).toBe(true);
    for (const other of ['billing:manage', 'Chat', 'toString', 'constructor', '', 1, undefined]) expect(isApiScope(other)).toBe(false);
  });
});
