// The live inbox through the gateway, against the real auth, billing, chatbot and chat services: a
// visitor asks for a person (the chat service's RequestHandoff, as the visitor's path calls it), the
// workspace's agents are mailed once (those who chose to be), the waiting conversation appears on
// GET /api/inbox/events and in the GraphQL inbox, and an agent claims it, replies (once per
// clientMessageId), adds a note, hands it back and closes it. Roles, the plan and bad input are refused
// with 4xx before anything runs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { readOutbox } from '@parley/common/mail-outbox.ts';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { ApiKeyService } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { CLIENT_MESSAGE_ID_INVALID, CONTENT_EMPTY, CONVERSATION_NOT_FOUND } from '../src/features/inbox/inbox.ts';
import { api, startGateway, startStack, TEST_SERVICE_SECRET, type Stack } from './stack.ts';
import { readEvents, until } from './event-stream.ts';
import { createTeam, gqlIn, inWorkspace, setWorkspacePlan, sql, type Team } from './workspace-fixtures.ts';

let stack: Stack;
let team: Team;
let chatbot: { id: string; uniqueId: string };
let chat: ReturnType<typeof createServiceClient<typeof ChatService>>;
let keys: ReturnType<typeof createServiceClient<typeof ApiKeyService>>;
let visitorIp = 10;
let redis: ReturnType<typeof createRedis>;
let handoffQueue: Queue;

const INBOX_PRO_ONLY = 'The live inbox is available on the Pro plan.';

const ITEM = 'conversationId chatbotId status agentName assigneeId waitingSince visitorName lastMessage lastMessageAt messageCount';

beforeAll(async () => {
  // Pings every 200 ms, so the test sees one without waiting the 15 s of production.
  stack = await startStack({ gatewayEnv: { SSE_PING_MS: '200' } });
  chat = createServiceClient(ChatService, stack.chatUrl, {
    timeoutMs: 10_000,
    credentials: { caller: 'gateway', secret: TEST_SERVICE_SECRET },
  });
  keys = createServiceClient(ApiKeyService, stack.authUrl, {
    timeoutMs: 10_000,
    credentials: { caller: 'gateway', secret: TEST_SERVICE_SECRET },
  });
  redis = createRedis(stack.redisUrl);
  handoffQueue = new Queue(QUEUES.handoffRequested, { connection: redis, prefix: stack.queuePrefix });
  team = await createTeam(stack, 'inbox');
  await setWorkspacePlan(stack, team.owner, team.id, 'pro');
  await api(stack.url, '/api/user/profile', { method: 'PUT', body: { name: 'Ada Agent' }, token: team.members.agent.token });
  const created = await inWorkspace(stack, team.id, '/api/chatbot', { body: { name: 'Support' }, token: team.owner.token });
  expect(created.status).toBe(201);
  chatbot = { id: created.body._id, uniqueId: created.body.uniqueId };
  // Before the chatbot's first message: the chat service keeps what it read of it.
  await sql(stack.chatbotDatabase, `UPDATE $schema."Chatbot" SET "handoffEnabled" = true WHERE id = $1`, [chatbot.id]);
});
afterAll(async () => {
  await handoffQueue?.close();
  await redis?.quit();
  await stack?.close();
});

/** A visitor's first message, then their request for a person: the conversation's id. */
async function visitorWaits(message = 'Where is my parcel?'): Promise<{ conversationId: string; sessionId: string }> {
  visitorIp += 1;
  const sent = await api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/chat`, {
    body: { message, model: 'gpt-4o-mini' },
    headers: { 'x-forwarded-for': `198.51.100.${visitorIp}` },
  });
  expect(sent.status).toBe(200);
  const sessionId: string = sent.body.sessionId;
  await chat.requestHandoff({ uniqueId: chatbot.uniqueId, sessionId });
  const rows = await sql(stack.chatDatabase, `SELECT id FROM $schema."Conversation" WHERE "sessionId" = $1`, [sessionId]);
  return { conversationId: rows[0].id, sessionId };
}

/** GET /api/inbox/events, read in the background: the events so far, and a stop that leaves as a browser would. */
async function openEvents(token: string, workspaceId = team.id, baseUrl = stack.url) {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/api/inbox/events`, {
    headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const { events, comments, ended, reading } = readEvents(res);
  return {
    res,
    events,
    comments,
    ended,
    async stop() {
      abort.abort();
      await reading;
    },
  };
}

/** The HandoffRequested job the chat service published for a conversation (its id is the conversation's). */
const handoffJob = (conversationId: string) => handoffQueue.getJob(conversationId);

const gql = (token: string, query: string, variables: Record<string, unknown> = {}, workspaceId = team.id) =>
  gqlIn(stack, workspaceId, token, query, variables);

describe('the live inbox', () => {
  it('streams a waiting conversation to the agents, lists it, counts it, and mails the agents who chose to be told', async () => {
    // The editor switches the mails off for this workspace.
    const off = await gql(team.members.editor.token, 'mutation { setHandoffNotifications(enabled: false) }');
    expect(off.body.data.setHandoffNotifications).toBe(false);
    const read = await gql(team.members.editor.token, '{ currentWorkspace { handoffNotifications } }');
    expect(read.body.data.currentWorkspace.handoffNotifications).toBe(false);

    const stream = await openEvents(team.members.agent.token);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await until(() => stream.comments.length > 0);

    await until(() => stream.comments.includes(': ping'));
    const { conversationId } = await visitorWaits('Can I talk to someone about my parcel?');
    await until(() => stream.events.some((e) => e.data.conversationId === conversationId));
    const event = stream.events.find((e) => e.data.conversationId === conversationId)!;
    expect(event.event).toBe('conversation');
    expect(event.data).toMatchObject({ conversationId, chatbotId: chatbot.id, status: 'WAITING', agentName: null, assigneeId: null });
    expect(Date.parse(event.data.waitingSince)).not.toBeNaN();

    const inbox = await gql(team.members.agent.token, `{ inbox { waiting { ${ITEM} } open { ${ITEM} } } inboxWaitingCount }`);
    expect(inbox.body.errors).toBeUndefined();
    expect(inbox.body.data.inbox.waiting.map((i: { conversationId: string }) => i.conversationId)).toContain(conversationId);
    expect(inbox.body.data.inboxWaitingCount).toBeGreaterThanOrEqual(1);

    // Agents and above with the switch on get one mail linking to the conversation; the editor and the viewer none.
    await until(async () => (await handoffJob(conversationId))?.finishedOn !== undefined);
    expect(await (await handoffJob(conversationId))!.isCompleted()).toBe(true);
    const link = `${stack.publicUrl}/inbox/${conversationId}`;
    const mailed = (await readOutbox(stack.mailOutboxDir, { limit: 1000 })).filter((m) => m.text.includes(link)).flatMap((m) => m.to);
    expect(mailed.sort()).toEqual([team.owner.email, team.members.admin.email, team.members.agent.email].sort());

    await stream.stop();
    expect(stream.ended()).toBe(true);
  });

  it('lets an agent claim, reply once per clientMessageId, note, hand back and close, live on the stream', async () => {
    const { conversationId } = await visitorWaits('Hello, anyone?');
    const stream = await openEvents(team.owner.token);
    await until(() => stream.comments.length > 0);
    const agent = team.members.agent.token;

    const claimed = await gql(agent, `mutation($id: ID!) { claimConversation(id: $id) { ${ITEM} } }`, { id: conversationId });
    expect(claimed.body.errors).toBeUndefined();
    expect(claimed.body.data.claimConversation).toMatchObject({
      conversationId,
      status: 'HUMAN',
      agentName: 'Ada Agent',
      assigneeId: team.members.agent.userId,
    });
    await until(() => stream.events.some((e) => e.data.conversationId === conversationId && e.data.status === 'HUMAN'));

    const clientMessageId = randomUUID();
    const reply = `mutation($id: ID!, $content: String!, $clientMessageId: ID!) {
      replyToConversation(id: $id, content: $content, clientMessageId: $clientMessageId) { id role content authorName timestamp } }`;
    const first = await gql(agent, reply, { id: conversationId, content: 'Yes, I am here.', clientMessageId });
    const again = await gql(agent, reply, { id: conversationId, content: 'Yes, I am here.', clientMessageId });
    expect(first.body.data.replyToConversation).toMatchObject({ role: 'agent', content: 'Yes, I am here.', authorName: 'Ada Agent' });
    expect(again.body.data.replyToConversation.id).toBe(first.body.data.replyToConversation.id);

    const note = await gql(
      agent,
      `mutation($id: ID!, $content: String!, $clientMessageId: ID!) {
        addConversationNote(id: $id, content: $content, clientMessageId: $clientMessageId) { id role content authorName } }`,
      { id: conversationId, content: 'Parcel is in the depot.', clientMessageId: randomUUID() },
    );
    expect(note.body.data.addConversationNote).toMatchObject({ role: 'note', authorName: 'Ada Agent' });

    const read = await gql(
      team.members.admin.token,
      `query($id: ID!) { inboxConversation(id: $id) { item { status agentName } sessionId messages { role content authorName } summary lead { id } } }`,
      { id: conversationId },
    );
    const view = read.body.data.inboxConversation;
    expect(view.item).toEqual({ status: 'HUMAN', agentName: 'Ada Agent' });
    expect(view.messages.map((m: { role: string }) => m.role)).toEqual(expect.arrayContaining(['user', 'agent', 'note']));
    expect(view.messages.filter((m: { role: string }) => m.role === 'agent')).toHaveLength(1);
    expect(view.lead).toBeNull();

    // The History tab, the REST conversation and the developer API keep the reply and the note as
    // such, with who wrote them (members read notes everywhere; the visitor never does).
    const { sessionId } = (
      await sql(stack.chatDatabase, `SELECT "sessionId" FROM $schema."Conversation" WHERE id = $1`, [conversationId])
    )[0];
    // The inbox names the visitor's session: what the calls the bot made in it are read by.
    expect(view.sessionId).toBe(sessionId);
    const written = [
      { role: 'agent', content: 'Yes, I am here.', authorName: 'Ada Agent' },
      { role: 'note', content: 'Parcel is in the depot.', authorName: 'Ada Agent' },
    ];
    const byMember = (messages: Array<{ role: string; content: string; authorName: string | null }>) =>
      messages
        .filter((m) => m.role === 'agent' || m.role === 'note')
        .map(({ role, content, authorName }) => ({ role, content, authorName }));
    const history = await gql(
      team.members.admin.token,
      `query($chatbotId: ID!, $id: ID!) { conversation(chatbotId: $chatbotId, id: $id) { messages { role content authorName } } }`,
      { chatbotId: chatbot.id, id: conversationId },
    );
    expect(history.body.errors).toBeUndefined();
    expect(byMember(history.body.data.conversation.messages)).toEqual(written);
    expect(history.body.data.conversation.messages[0]).toEqual({ role: 'user', content: 'Hello, anyone?', authorName: null });
    const rest = await inWorkspace(stack, team.id, `/api/chatbot/${chatbot.id}/conversations/${conversationId}`, {
      token: team.members.admin.token,
    });
    expect(rest.status).toBe(200);
    expect(byMember(rest.body.messages)).toEqual(written);
    const { secret } = await keys.createApiKey({
      actor: { userId: team.owner.userId, workspaceId: team.id, clientIp: '127.0.0.1' },
      name: 'history',
      scopes: ['conversations:read'],
      chatbotIds: [],
    });
    const developer = await api(stack.url, `/api/v1/chatbots/${chatbot.id}/conversations/${sessionId}/messages`, { token: secret });
    expect(developer.status).toBe(200);
    expect(byMember(developer.body.data)).toEqual(written);

    const back = await gql(agent, `mutation($id: ID!) { handBackConversation(id: $id) { status agentName } }`, { id: conversationId });
    expect(back.body.data.handBackConversation).toEqual({ status: 'BOT', agentName: null });
    await until(() => stream.events.some((e) => e.data.conversationId === conversationId && e.data.status === 'BOT'));
    // The bot has it: a reply is refused with a clear 400.
    const refused = await gql(agent, reply, { id: conversationId, content: 'Too late', clientMessageId: randomUUID() });
    expect(refused.body.errors[0].extensions.http.status).toBe(400);

    const { conversationId: second } = await visitorWaits('Still there?');
    const closed = await gql(agent, `mutation($id: ID!) { closeConversation(id: $id) { status } }`, { id: second });
    expect(closed.body.data.closeConversation.status).toBe('CLOSED');
    const after = await gql(agent, `{ inbox { waiting { conversationId } open { conversationId } } }`);
    const ids = [...after.body.data.inbox.waiting, ...after.body.data.inbox.open].map((i: { conversationId: string }) => i.conversationId);
    expect(ids).not.toContain(conversationId);
    expect(ids).not.toContain(second);
    await stream.stop();
  });

  it("names the visitor by their lead, previews the visitor's own words, and gives the bot's answers their sources", async () => {
    const owner = team.owner.token;
    const added = await inWorkspace(stack, team.id, `/api/chatbot/${chatbot.id}/knowledge-base/text`, {
      body: { text: 'Every parcel ships from the Lyon warehouse within two working days.', append: true },
      token: owner,
    });
    expect(added.status).toBe(200);
    const form = await inWorkspace(stack, team.id, `/api/chatbot/${chatbot.id}`, {
      method: 'PUT',
      body: { leadForm: { name: 'optional', email: 'optional', trigger: 'after_messages', afterMessages: 1 } },
      token: owner,
    });
    expect(form.status).toBe(200);

    visitorIp += 1;
    const headers = { 'x-forwarded-for': `198.51.100.${visitorIp}` };
    const asked = await api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      body: { message: 'Which warehouse do parcels ship from?', model: 'gpt-4o-mini' },
      headers,
    });
    expect(asked.status).toBe(200);
    const sessionId: string = asked.body.sessionId;
    const lead = await api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/lead`, {
      body: { sessionId, name: 'Grace Hopper', email: 'grace@example.com' },
      headers,
    });
    expect(lead.status).toBe(201);
    await chat.requestHandoff({ uniqueId: chatbot.uniqueId, sessionId });
    const [{ id: conversationId }] = await sql(stack.chatDatabase, `SELECT id FROM $schema."Conversation" WHERE "sessionId" = $1`, [
      sessionId,
    ]);

    const row = async () => {
      const inbox = await gql(team.members.agent.token, `{ inbox { waiting { ${ITEM} visitorEmail lastVisitorMessage channel } } }`);
      expect(inbox.body.errors).toBeUndefined();
      return inbox.body.data.inbox.waiting.find((i: { conversationId: string }) => i.conversationId === conversationId);
    };
    // The bot answered last; the row previews what the visitor wrote, and names them as their lead did.
    expect(await row()).toMatchObject({
      visitorName: 'Grace Hopper',
      visitorEmail: 'grace@example.com',
      lastVisitorMessage: 'Which warehouse do parcels ship from?',
      // The widget's conversation: History's name for it.
      channel: 'web',
      lastMessage: expect.not.stringMatching(/^Which warehouse do parcels ship from\?$/),
    });

    // A message while waiting reaches the stream as the visitor's, still under the lead's name.
    const stream = await openEvents(team.members.agent.token);
    await until(() => stream.comments.length > 0);
    const waiting = await api(stack.url, `/api/chatbot/public/${chatbot.uniqueId}/chat`, {
      body: { message: 'Is anyone there?', sessionId, model: 'gpt-4o-mini' },
      headers,
    });
    expect(waiting.status).toBe(200);
    await until(() => stream.events.some((e) => e.data.conversationId === conversationId));
    expect(stream.events.find((e) => e.data.conversationId === conversationId)!.data).toMatchObject({
      visitorName: 'Grace Hopper',
      visitorEmail: 'grace@example.com',
      lastMessage: 'Is anyone there?',
      lastVisitorMessage: 'Is anyone there?',
      channel: 'web',
    });
    await stream.stop();

    const read = await gql(
      team.members.agent.token,
      `query($id: ID!) { inboxConversation(id: $id) { item { visitorName } messages { role content sources { entryId title url } } } }`,
      { id: conversationId },
    );
    expect(read.body.errors).toBeUndefined();
    const { item, messages } = read.body.data.inboxConversation;
    expect(item.visitorName).toBe('Grace Hopper');
    const answer = messages.find((m: { role: string }) => m.role === 'assistant');
    expect(answer.sources).toEqual([expect.objectContaining({ entryId: expect.any(String), title: expect.any(String) })]);
    expect(messages.filter((m: { role: string }) => m.role === 'user').every((m: { sources: unknown[] }) => m.sources.length === 0)).toBe(
      true,
    );
  });

  it('answers bad input with a 4xx: ids that are not conversations, empty or huge content, a missing or malformed clientMessageId', async () => {
    const agent = team.members.agent.token;
    const status = (res: { body: any; status: number }) => res.body.errors?.[0]?.extensions?.http?.status ?? res.status;
    const notOurs = await gql(agent, `query($id: ID!) { inboxConversation(id: $id) { summary } }`, { id: 'not-a-conversation' });
    expect(status(notOurs)).toBe(404);
    expect(notOurs.body.errors[0].message).toBe(CONVERSATION_NOT_FOUND);
    const unknown = await gql(agent, `mutation($id: ID!) { claimConversation(id: $id) { status } }`, { id: randomUUID() });
    expect(status(unknown)).toBe(404);

    const { conversationId } = await visitorWaits('Help please');
    const reply = `mutation($id: ID!, $content: String!, $clientMessageId: ID!) {
      replyToConversation(id: $id, content: $content, clientMessageId: $clientMessageId) { id } }`;
    const empty = await gql(agent, reply, { id: conversationId, content: '   ', clientMessageId: randomUUID() });
    expect(status(empty)).toBe(400);
    expect(empty.body.errors[0].message).toBe(CONTENT_EMPTY);
    const huge = await gql(agent, reply, { id: conversationId, content: 'x'.repeat(50_000), clientMessageId: randomUUID() });
    expect(status(huge)).toBeGreaterThanOrEqual(400);
    expect(status(huge)).toBeLessThan(500);
    const badId = await gql(agent, reply, { id: conversationId, content: 'Hi', clientMessageId: 'abc' });
    expect(status(badId)).toBe(400);
    expect(badId.body.errors[0].message).toBe(CLIENT_MESSAGE_ID_INVALID);
    const missing = await gql(agent, `mutation($id: ID!) { addConversationNote(id: $id, content: "Hi") { id } }`, { id: conversationId });
    expect(status(missing)).toBe(400);
    const control = await gql(agent, reply, { id: conversationId, content: 'a\u0000b', clientMessageId: randomUUID() });
    expect(status(control)).toBe(400);
  });

  it('ends its streams when the gateway stops, so the stop does not wait on them', async () => {
    const second = await startGateway(stack.gatewayEnv);
    const stream = await openEvents(team.members.agent.token, team.id, second.url);
    expect(stream.res.status).toBe(200);
    await until(() => stream.comments.length > 0);
    await second.close();
    await until(() => stream.ended());
    expect(stream.events).toEqual([]);
  });

  it('refuses viewers, outsiders and free workspaces', async () => {
    const viewer = await gql(team.members.viewer.token, '{ inbox { waiting { conversationId } } }');
    expect(viewer.body.errors[0].extensions.http.status).toBe(403);
    const viewerStream = await openEvents(team.members.viewer.token);
    expect(viewerStream.res.status).toBe(403);
    await viewerStream.stop();
    const signedOut = await fetch(`${stack.url}/api/inbox/events`);
    expect(signedOut.status).toBe(401);

    const free = await createTeam(stack, 'inbox-free');
    const refused = await gql(free.owner.token, '{ inbox { waiting { conversationId } } }', {}, free.id);
    expect(refused.body.errors[0]).toMatchObject({ message: INBOX_PRO_ONLY, extensions: { code: 'FORBIDDEN' } });
    const count = await gql(free.owner.token, '{ inboxWaitingCount }', {}, free.id);
    expect(count.body.data.inboxWaitingCount).toBe(0);
    const freeStream = await openEvents(free.owner.token, free.id);
    await until(() => freeStream.ended());
    expect(freeStream.events).toEqual([{ event: 'error', data: { message: INBOX_PRO_ONLY, status: 403 } }]);
    // Any member keeps their own switch, whatever the plan.
    const viewerSwitch = await gql(team.members.viewer.token, 'mutation { setHandoffNotifications(enabled: false) }');
    expect(viewerSwitch.body.data.setHandoffNotifications).toBe(false);
  });
});
