// The role a developer API key's service calls carry (v1/router.ts keyRole): the lowest that holds
// the route's permission, raised to an agent's for a key that may read conversations, so visitors'
// words reach such a key as typed and reach any other masked, as a viewer reads them.
import { describe, expect, it } from 'vitest';
import type { ApiScope } from '@parley/common/api-scopes.ts';
import { keyRole } from '../router.ts';
import { API_V1_ROUTES } from '../routes.ts';

const scopes = (...names: ApiScope[]) => new Set<ApiScope>(names);

describe('keyRole', () => {
  it("is the lowest role of the route's permission for a key without conversations:read", () => {
    const key = scopes('chatbots:read', 'usage:read', 'chat');
    expect(keyRole(API_V1_ROUTES['GET /api/v1/chatbots'], key)).toBe('viewer');
    expect(keyRole(API_V1_ROUTES['GET /api/v1/usage'], key)).toBe('viewer');
    expect(keyRole(API_V1_ROUTES['POST /api/v1/chatbots/:id/chat'], key)).toBe('viewer');
    expect(keyRole(API_V1_ROUTES['PATCH /api/v1/chatbots/:id'], scopes('chatbots:write'))).toBe('editor');
  });

  it('is at least an agent for a key with conversations:read, and never lowers a route that needs more', () => {
    const key = scopes('chatbots:read', 'usage:read', 'conversations:read');
    expect(keyRole(API_V1_ROUTES['GET /api/v1/chatbots'], key)).toBe('agent');
    expect(keyRole(API_V1_ROUTES['GET /api/v1/usage'], key)).toBe('agent');
    expect(keyRole(API_V1_ROUTES['GET /api/v1/chatbots/:id/conversations'], key)).toBe('agent');
    expect(keyRole(API_V1_ROUTES['PATCH /api/v1/chatbots/:id'], scopes('chatbots:write', 'conversations:read'))).toBe('editor');
  });
});
