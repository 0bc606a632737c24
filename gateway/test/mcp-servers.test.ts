// A chatbot's remote MCP servers through the owner's REST (ADR 55): connected to a local MCP server
// built with the official SDK's server (loopback allowed by the chatbot service's OUTBOUND_ALLOW),
// its tools listed and picked, refreshed, logged and disconnected, each change in the workspace's
// audit log; the secret never answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMcpServer, type FakeMcpServer } from '@parley/common/testing/fake-mcp-server.ts';
import { registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type Stack } from './stack.ts';

const TOKEN = 'mcp_token_0123456789abcdef';
let stack: Stack;
let mcp: FakeMcpServer;
let owner: Owner;
let chatbotId: string;

beforeAll(async () => {
  mcp = await startFakeMcpServer();
  stack = await startStack({ chatbotEnv: { OUTBOUND_ALLOW: '127.0.0.1' } });
  owner = await registerOwner(stack, 'mcp-servers');
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Shop' }, token: owner.token });
  chatbotId = created.body._id;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await mcp?.close();
});

describe('MCP servers over REST', () => {
  it('connects, picks tools, refreshes, logs and disconnects, audited, never answering the secret', async () => {
    const path = `/api/chatbot/${chatbotId}/mcp-servers`;
    const created = await api(stack.url, path, {
      body: { name: 'shop', url: mcp.url, secretHeader: 'Authorization', secret: TOKEN },
      token: owner.token,
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      [
        'chatbotId',
        'createdAt',
        'id',
        'lastError',
        'listedAt',
        'maxResultBytes',
        'name',
        'picked',
        'secretHeader',
        'secretHint',
        'timeoutMs',
        'tools',
        'url',
      ].sort(),
    );
    expect(created.body).toMatchObject({ name: 'shop', secretHint: '••••cdef', picked: [], lastError: null, timeoutMs: 10000 });
    expect(created.body.tools[0]).toMatchObject({ name: 'order_status', description: 'Where an order is', readOnly: true });
    expect(JSON.stringify(created.body)).not.toContain(TOKEN);
    const id = created.body.id;

    const picked = await api(stack.url, `${path}/${id}/tools`, {
      method: 'PUT',
      body: { tools: [{ name: 'order_status', confirm: false, responseFields: ['order.status'] }] },
      token: owner.token,
    });
    expect(picked.status).toBe(200);
    expect(picked.body.picked).toEqual([{ name: 'order_status', confirm: false, responseFields: ['order.status'] }]);
    const unknown = await api(stack.url, `${path}/${id}/tools`, {
      method: 'PUT',
      body: { tools: [{ name: 'drop_tables', confirm: false }] },
      token: owner.token,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('The server does not list a tool named drop_tables');

    const refreshed = await api(stack.url, `${path}/${id}/refresh`, { method: 'POST', token: owner.token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.picked).toHaveLength(1);

    const listed = await api(stack.url, path, { token: owner.token });
    expect(listed.body.map((s: { name: string }) => s.name)).toEqual(['shop']);
    const calls = await api(stack.url, `${path}/calls?serverId=${id}`, { token: owner.token });
    expect(calls.status).toBe(200);
    expect(calls.body).toEqual([]);

    const removed = await api(stack.url, `${path}/${id}`, { method: 'DELETE', token: owner.token });
    expect(removed.body).toEqual({ message: 'MCP server disconnected' });
    expect((await api(stack.url, path, { token: owner.token })).body).toEqual([]);
    const again = await api(stack.url, `${path}/${id}`, { method: 'DELETE', token: owner.token });
    expect(again.status).toBe(404);

    for (const action of ['chatbot.mcp_server_connected', 'chatbot.mcp_tools_changed', 'chatbot.mcp_server_disconnected']) {
      const log = await api(stack.url, `/api/workspace/audit-log?action=${action}`, { token: owner.token });
      expect(log.body.events).toEqual([expect.objectContaining({ action, target: chatbotId, actorEmail: owner.email })]);
    }
  });

  it('refuses a bad body with a clear 400, never a 500', async () => {
    const path = `/api/chatbot/${chatbotId}/mcp-servers`;
    const missing = await api(stack.url, path, { body: { name: 'x' }, token: owner.token });
    expect(missing.status).toBe(400);
    const inside = await api(stack.url, path, { body: { name: 'inside', url: 'http://10.0.0.1/mcp' }, token: owner.token });
    expect(inside.status).toBe(400);
    expect(inside.body.message).toContain('10.0.0.1 is a private address');
  });

  it("answers another workspace's chatbot as not found", async () => {
    const other = await registerOwner(stack, 'mcp-other');
    const res = await api(stack.url, `/api/chatbot/${chatbotId}/mcp-servers`, { token: other.token });
    expect(res.status).toBe(404);
  });
});
