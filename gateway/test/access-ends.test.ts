// Access ends the moment it is taken away, for the responses that outlive a request: a member's open
// inbox stream and a key's streamed answer, against the real auth, billing, chatbot and chat services
// and Redis. Each case opens the stream, takes access away through the product's own API, and sees the
// stream end with its final event ("You no longer have access to this workspace.") and nothing the
// visitor sent after the change. The gateways re-check on their own only once an hour here
// (ACCESS_RECHECK_MS), so what ends each stream is auth's announcement, on whichever replica.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ACCESS_ENDED, KEY_ENDED } from '../src/access/held-streams.ts';
import { apiKeys, chatbotWithKnowledge, v1 } from './api-v1-fixtures.ts';
import { PASSWORD, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startGateway, startStack, TEST_SERVICE_SECRET, type Stack } from './stack.ts';
import { readEvents, until } from './event-stream.ts';
import { createTeam, inWorkspace, setMembership, setWorkspacePlan, sql, type Team } from './workspace-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;
let replica: Awaited<ReturnType<typeof startGateway>>;
let chat: ReturnType<typeof createServiceClient<typeof ChatService>>;
let visitorIp = 10;

const HOUR_MS = String(60 * 60 * 1000);

beforeAll(async () => {
  fake = await startFakeOpenAI();
  stack = await startStack({
    chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url },
    billingEnv: { INITIAL_CREDIT: '5' },
    gatewayEnv: { ACCESS_RECHECK_MS: HOUR_MS, SSE_PING_MS: '200' },
  });
  // A second gateway replica in front of the same services.
  replica = await startGateway(stack.gatewayEnv);
  chat = createServiceClient(ChatService, stack.chatUrl, {
    timeoutMs: 10_000,
    credentials: { caller: 'gateway', secret: TEST_SERVICE_SECRET },
  });
});
afterAll(async () => {
  await replica?.close();
  await stack?.close();
  await fake?.close();
});

/** GET /api/inbox/events on a gateway, once it is connected. */
async function openInbox(member: Owner, workspaceId: string, baseUrl = stack.url) {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/api/inbox/events`, {
    headers: { authorization: `Bearer ${member.token}`, 'x-workspace-id': workspaceId, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  const stream = readEvents(res);
  await until(() => stream.comments.includes(': connected'), 'the stream to connect');
  return {
    ...stream,
    async close() {
      abort.abort();
      await stream.reading;
    },
  };
}

/** A pro team with a handoff chatbot, whose visitors can ask for a person. */
async function handoffTeam(tag: string): Promise<{ team: Team; uniqueId: string }> {
  const team = await createTeam(stack, tag);
  await setWorkspacePlan(stack, team.owner, team.id, 'pro');
  // Credit for the visitors' answers, as a top-up would leave it.
  await sql(stack.billingDatabase, `UPDATE $schema."Account" SET "creditBalance" = 5 WHERE "userId" = $1`, [team.id]);
  const created = await inWorkspace(stack, team.id, '/api/chatbot', { body: { name: `${tag} support` }, token: team.owner.token });
  expect(created.status).toBe(201);
  await sql(stack.chatbotDatabase, `UPDATE $schema."Chatbot" SET "handoffEnabled" = true WHERE id = $1`, [created.body._id]);
  return { team, uniqueId: created.body.uniqueId };
}

/** A visitor's message, then their request for a person: the inbox hears of it. */
async function visitorWaits(uniqueId: string, message: string): Promise<void> {
  visitorIp += 1;
  const sent = await api(stack.url, `/api/chatbot/public/${uniqueId}/chat`, {
    body: { message, model: 'gpt-4o-mini' },
    headers: { 'x-forwarded-for': `198.51.100.${visitorIp}` },
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  await chat.requestHandoff({ uniqueId, sessionId: sent.body.sessionId });
}

/** The stream saw the visitor before the change, ended with the final event, and saw nothing after it. */
async function expectEndedAfter(
  stream: Awaited<ReturnType<typeof openInbox>>,
  uniqueId: string,
  takeAway: () => Promise<void>,
  status: number,
  { visitorAfter = true } = {},
) {
  await visitorWaits(uniqueId, 'Before: where is my parcel?');
  await until(() => stream.events.some((e) => e.event === 'conversation'), 'the first visitor to reach the inbox');
  await takeAway();
  if (visitorAfter) await visitorWaits(uniqueId, 'After: call me on +44 20 7946 0958 please');
  await until(stream.ended, 'the stream to end');
  const last = stream.events.at(-1)!;
  expect(last).toEqual({ event: 'error', data: { message: ACCESS_ENDED, status } });
  expect(JSON.stringify(stream.events)).not.toContain('+44 20');
}

describe('an open inbox stream', () => {
  let t: Awaited<ReturnType<typeof handoffTeam>>;
  beforeAll(async () => {
    t = await handoffTeam('ends');
  });

  it('ends when the member is removed', async () => {
    const agent = await registerOwner(stack, 'removed-agent');
    await setMembership(stack, t.team.id, agent.userId, 'agent');
    const stream = await openInbox(agent, t.team.id);
    await expectEndedAfter(
      stream,
      t.uniqueId,
      async () => {
        const removed = await inWorkspace(stack, t.team.id, `/api/workspace/members/${agent.userId}`, {
          method: 'DELETE',
          token: t.team.owner.token,
        });
        expect(removed.status).toBeLessThan(300);
      },
      403,
    );
  });

  it('ends on one replica when the member leaves through another', async () => {
    const agent = await registerOwner(stack, 'leaving-agent');
    await setMembership(stack, t.team.id, agent.userId, 'agent');
    // The stream on the second replica, the change through the first.
    const stream = await openInbox(agent, t.team.id, replica.url);
    await expectEndedAfter(
      stream,
      t.uniqueId,
      async () => {
        const left = await inWorkspace(stack, t.team.id, '/api/workspace/leave', { method: 'POST', token: agent.token });
        expect(left.status).toBeLessThan(300);
      },
      403,
    );
  });

  it("ends when the member's role changes to one that may not read conversations", async () => {
    const editor = await registerOwner(stack, 'demoted-editor');
    await setMembership(stack, t.team.id, editor.userId, 'editor');
    const stream = await openInbox(editor, t.team.id);
    await expectEndedAfter(
      stream,
      t.uniqueId,
      async () => {
        const changed = await inWorkspace(stack, t.team.id, `/api/workspace/members/${editor.userId}`, {
          method: 'PATCH',
          body: { role: 'viewer' },
          token: t.team.owner.token,
        });
        expect(changed.status).toBe(200);
      },
      403,
    );
  });

  it("keeps streaming when the member's new role still reads conversations", async () => {
    const editor = await registerOwner(stack, 'promoted-editor');
    await setMembership(stack, t.team.id, editor.userId, 'agent');
    const stream = await openInbox(editor, t.team.id);
    const changed = await inWorkspace(stack, t.team.id, `/api/workspace/members/${editor.userId}`, {
      method: 'PATCH',
      body: { role: 'editor' },
      token: t.team.owner.token,
    });
    expect(changed.status).toBe(200);
    await visitorWaits(t.uniqueId, 'Still there for the editor?');
    await until(() => stream.events.some((e) => e.event === 'conversation' && e.data.status === 'WAITING'), 'the visitor');
    expect(stream.ended()).toBe(false);
    await stream.close();
  });

  it('ends when the session signs out', async () => {
    const agent = await registerOwner(stack, 'signing-out-agent');
    await setMembership(stack, t.team.id, agent.userId, 'agent');
    const stream = await openInbox(agent, t.team.id);
    await expectEndedAfter(
      stream,
      t.uniqueId,
      async () => {
        expect((await api(stack.url, '/api/auth/logout', { token: agent.token })).status).toBe(200);
      },
      401,
    );
  });

  it('ends when another device signs the other sessions out, and when the password changes', async () => {
    const agent = await registerOwner(stack, 'two-device-agent');
    await setMembership(stack, t.team.id, agent.userId, 'agent');
    const signIn = async () => {
      const res = await api(stack.url, '/api/auth/login', { body: { email: agent.email, password: PASSWORD } });
      expect(res.status).toBe(200);
      return { ...agent, token: res.body.token as string };
    };
    const laptop = await openInbox(await signIn(), t.team.id);
    await expectEndedAfter(
      laptop,
      t.uniqueId,
      async () => {
        const revoked = await api(stack.url, '/api/user/sessions/revoke-others', { method: 'POST', token: agent.token });
        expect(revoked.status).toBe(200);
      },
      401,
    );
    const phone = await openInbox(await signIn(), t.team.id, replica.url);
    await expectEndedAfter(
      phone,
      t.uniqueId,
      async () => {
        const changed = await api(stack.url, '/api/user/password', {
          method: 'PUT',
          body: { currentPassword: PASSWORD, password: 'another-secret-pass', password2: 'another-secret-pass' },
          token: agent.token,
        });
        expect(changed.status).toBe(200);
      },
      401,
    );
  });

  it('ends when the account is deleted', async () => {
    const agent = await registerOwner(stack, 'deleted-agent');
    await setMembership(stack, t.team.id, agent.userId, 'agent');
    const second = await api(stack.url, '/api/auth/login', { body: { email: agent.email, password: PASSWORD } });
    const stream = await openInbox({ ...agent, token: second.body.token }, t.team.id);
    await expectEndedAfter(
      stream,
      t.uniqueId,
      async () => {
        const deleted = await api(stack.url, '/api/user/account', { method: 'DELETE', body: { password: PASSWORD }, token: agent.token });
        expect(deleted.status).toBeLessThan(300);
      },
      401,
    );
  });

  it('ends for every member when the workspace is deleted', async () => {
    const doomed = await handoffTeam('doomed');
    const agent = await openInbox(doomed.team.members.agent, doomed.team.id);
    const admin = await openInbox(doomed.team.members.admin, doomed.team.id, replica.url);
    await expectEndedAfter(
      agent,
      doomed.uniqueId,
      async () => {
        const deleted = await inWorkspace(stack, doomed.team.id, '/api/workspace', {
          method: 'DELETE',
          body: { password: PASSWORD },
          token: doomed.team.owner.token,
        });
        expect(deleted.status).toBeLessThan(300);
      },
      403,
      // The workspace's chatbots went with it: no visitor can write after the change.
      { visitorAfter: false },
    );
    await until(admin.ended, "the admin's stream to end");
    expect(admin.events.at(-1)).toEqual({ event: 'error', data: { message: ACCESS_ENDED, status: 403 } });
  });
});

describe("a key's streamed answer", () => {
  let owner: Owner;
  let bot: string;
  beforeAll(async () => {
    owner = await registerOwner(stack, 'key-owner');
    bot = await chatbotWithKnowledge(stack, owner, 'Key shop');
  });

  /** A streamed answer through the developer API that takes its time, read once it has begun. */
  async function streamAnswer(secret: string, baseUrl = stack.url) {
    const res = await fetch(`${baseUrl}/api/v1/chatbots/${bot}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'When does the shop open in the morning?', stream: true }),
    });
    expect(res.status).toBe(200);
    const stream = readEvents(res);
    await until(() => stream.events.some((e) => e.event === 'delta'), 'the first delta');
    return stream;
  }

  it('ends with the error event when the key is revoked, and the next request is refused at once', async () => {
    fake.setBehaviour({ reply: 'We open at nine. '.repeat(40), chunkDelayMs: 100 });
    const keys = apiKeys(stack);
    const key = await keys.create(owner, ['chat', 'chatbots:read']);
    // Cached on both replicas by a request each.
    expect((await v1(stack, '/chatbots', key.secret)).status).toBe(200);
    expect((await v1(replica.url, '/chatbots', key.secret)).status).toBe(200);
    const stream = await streamAnswer(key.secret, replica.url);
    await keys.revoke(owner, key.id);
    await until(stream.ended, 'the answer to end');
    expect(stream.events.at(-1)).toEqual({ event: 'error', data: { message: KEY_ENDED } });
    expect(stream.events.some((e) => e.event === 'done')).toBe(false);
    // Within the key cache's 5 seconds, on either replica: forgotten when auth announced it.
    expect((await v1(stack, '/chatbots', key.secret)).status).toBe(401);
    expect((await v1(replica.url, '/chatbots', key.secret)).status).toBe(401);
    fake.reset();
  });

  it('ends when a roll ends the old secret at once, and keeps the new one working', async () => {
    fake.setBehaviour({ reply: 'We open at nine. '.repeat(40), chunkDelayMs: 100 });
    const keys = apiKeys(stack);
    const key = await keys.create(owner, ['chat', 'chatbots:read']);
    const stream = await streamAnswer(key.secret);
    const rolled = await keys.roll(owner, key.id, 0);
    await until(stream.ended, 'the answer to end');
    expect(stream.events.at(-1)).toEqual({ event: 'error', data: { message: KEY_ENDED } });
    expect((await v1(stack, '/chatbots', key.secret)).status).toBe(401);
    expect((await v1(stack, '/chatbots', rolled)).status).toBe(200);
    fake.reset();
  });
});
