// Humans in the loop, the chat service's core (docs/adr/0034-humans-in-the-loop.md): the moves of a
// conversation's handoff status, the bot silent while a person has it, the live streams across
// replicas (Redis pub/sub, stored first) with their catch-up, the inbox, and the agents' calls.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchConversationResponse } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { agent, clientMessageId, enableHandoff, read, until } from './handoff-helpers.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack, type ChatUnderTest } from './harness.ts';

let stack: ChatStack;
/** A second chat replica on the same database, Redis and queue prefix. */
let replica: ChatUnderTest;

beforeAll(async () => {
  stack = await startChatStack();
  replica = await stack.startChat({ CHAT_DB_SCHEMA: stack.config.CHAT_DB_SCHEMA });
});
afterAll(async () => {
  await stack?.stop();
});

/** A pro owner's chatbot with handoff on, and a visitor's conversation with it (one answered message). */
async function conversationWithHandoff(label: string, opts: { pro?: boolean; handoff?: boolean } = {}) {
  const bot = await stack.newChatbot({ knowledge: ['The shop opens at 9am.'] });
  await stack.makePro(bot.ownerId);
  if (opts.handoff !== false) await enableHandoff(stack.chatbots, bot);
  // A workspace that turned handoff on while on Pro, then went back to free.
  if (opts.pro === false) await stack.billing.prisma.account.update({ where: { ownerId: bot.ownerId }, data: { plan: 'free' } });
  stack.fake.setBehaviour({ reply: 'We open at 9am [1].' });
  const sessionId = session(label);
  await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId }));
  const conversation = await stack.parts.prisma.conversation.findUniqueOrThrow({
    where: { chatbotId_sessionId: { chatbotId: bot.id, sessionId } },
  });
  return { bot, sessionId, conversationId: conversation.id, owner: { ownerId: bot.ownerId, conversationId: conversation.id } };
}

const request = (uniqueId: string, sessionId: string) => ({ uniqueId, sessionId, clientIp: '203.0.113.7', siteHost: '', embedded: false });

const statusOf = async (conversationId: string) =>
  (await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: conversationId } })).handoffStatus;

const mirrorOf = (chatbotId: string, sessionId: string) => stack.redis.get(redisKeys(stack.prefix).handoff(chatbotId, sessionId));

const messagesOf = (events: WatchConversationResponse[]) =>
  events.flatMap((e) => (e.event.case === 'message' ? [[e.event.value.role, e.event.value.content, e.event.value.authorName]] : []));
const statesOf = (events: WatchConversationResponse[]) => events.flatMap((e) => (e.event.case === 'state' ? [e.event.value.status] : []));

describe('the handoff state machine', () => {
  it('moves bot → waiting → human → bot → waiting → closed → bot, each move mirrored in Redis', async () => {
    const c = await conversationWithHandoff('machine');
    const asked = await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    expect(asked.state?.status).toBe('waiting');
    expect(asked.state?.waitingSince).toBeDefined();
    expect(await statusOf(c.conversationId)).toBe('waiting');
    expect(JSON.parse((await mirrorOf(c.bot.id, c.sessionId))!)).toMatchObject({ status: 'waiting', agentName: '' });
    // Asking again changes nothing: the state as it is.
    expect((await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId))).state?.status).toBe('waiting');

    const claimed = await stack.client.claimConversation({ ...c.owner, agent: agent('Ada') });
    expect(claimed.item?.state?.status).toBe('human');
    expect(claimed.item?.state?.agentName).toBe('Ada');
    expect(claimed.item?.assigneeId).toBe('user-ada');
    expect(JSON.parse((await mirrorOf(c.bot.id, c.sessionId))!)).toMatchObject({ status: 'human', agentName: 'Ada' });
    // Another agent takes it over.
    expect((await stack.client.claimConversation({ ...c.owner, agent: agent('Bob') })).item?.state?.agentName).toBe('Bob');

    expect((await stack.client.handBackConversation({ ...c.owner, agent: agent('Bob') })).item?.state?.status).toBe('bot');
    expect(await mirrorOf(c.bot.id, c.sessionId)).toBeNull();
    // The bot's hands: nothing to hand back or close.
    for (const call of [
      () => stack.client.handBackConversation({ ...c.owner, agent: agent() }),
      () => stack.client.closeConversation({ ...c.owner, agent: agent() }),
      () => stack.client.claimConversation({ ...c.owner, agent: agent() }),
    ]) {
      expect((await rpcError(call())).code).toBe(Code.FailedPrecondition);
    }

    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    expect((await stack.client.closeConversation({ ...c.owner, agent: agent() })).item?.state?.status).toBe('closed');
    expect(await mirrorOf(c.bot.id, c.sessionId)).toBeNull();

    // Closed → bot by the visitor's next message: the bot answers it.
    const after = await stack.client.sendMessage(visitor(c.bot.uniqueId, 'And on Sunday?', { sessionId: c.sessionId }));
    expect(after.message).toBe('We open at 9am [1].');
    expect(after.handoff).toBeUndefined();
    expect(await statusOf(c.conversationId)).toBe('bot');
  });

  it('keeps the bot silent while waiting or human: the message is stored, no model, no credit, no usage', async () => {
    const c = await conversationWithHandoff('silent');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const calls = stack.fake.requests.length;
    const usageBefore = (await stack.usageJobs()).length;

    const res = await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Is anyone there?', { sessionId: c.sessionId }));
    expect(res.message).toBe('');
    expect(res.messageId).toBe('');
    expect(res.handoff?.status).toBe('waiting');
    expect(res.sessionId).toBe(c.sessionId);

    await stack.client.claimConversation({ ...c.owner, agent: agent('Ada') });
    const events = [];
    for await (const e of replica.client.streamMessage(visitor(c.bot.uniqueId, 'Hello Ada', { sessionId: c.sessionId }))) events.push(e);
    expect(events).toHaveLength(1);
    expect(events[0].event.case).toBe('done');
    const done = events[0].event.value as { message: string; handoff?: { status: string; agentName: string } };
    expect(done.message).toBe('');
    expect(done.handoff).toMatchObject({ status: 'human', agentName: 'Ada' });

    expect(stack.fake.requests.length).toBe(calls);
    expect((await stack.usageJobs()).length).toBe(usageBefore);
    const stored = await stack.parts.prisma.message.findMany({ where: { conversationId: c.conversationId }, orderBy: { id: 'asc' } });
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ['user', 'When do you open?'],
      ['assistant', 'We open at 9am [1].'],
      ['user', 'Is anyone there?'],
      ['user', 'Hello Ada'],
    ]);
    expect((await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } })).messageCount).toBe(4);
  });

  it("answers when the chatbot's handoff is off, whatever the mirror says, and reads no mirror", async () => {
    const c = await conversationWithHandoff('off', { handoff: false });
    await stack.redis.set(
      redisKeys(stack.prefix).handoff(c.bot.id, c.sessionId),
      JSON.stringify({ status: 'waiting', agentName: '', since: null }),
    );
    const res = await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Hello?', { sessionId: c.sessionId }));
    expect(res.message).toBe('We open at 9am [1].');
    expect(res.offerHandoff).toBe(false);
    expect((await rpcError(stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId)))).code).toBe(Code.FailedPrecondition);
  });

  it('reads the mirror in the admission round trip for a chatbot it knows, one GET for one it does not, nothing with handoff off', async () => {
    const on = await conversationWithHandoff('reads-on');
    const off = await conversationWithHandoff('reads-off', { handoff: false });
    const deps = stack.parts.deps;
    const { admission, handoff } = deps;
    const readAlong: string[][] = [];
    let gets = 0;
    deps.admission = { admit: (visitor, alsoRead) => (readAlong.push([...alsoRead]), admission.admit(visitor, alsoRead)) };
    deps.handoff = { ...handoff!, read: (chatbotId, sessionId) => (gets++, handoff!.read(chatbotId, sessionId)) };
    try {
      const key = (c: { bot: { id: string }; sessionId: string }) => redisKeys(stack.prefix).handoff(c.bot.id, c.sessionId);
      await stack.client.sendMessage(visitor(on.bot.uniqueId, 'Known, handoff on', { sessionId: on.sessionId }));
      expect(readAlong.at(-1)).toContain(key(on));
      expect(gets).toBe(0);
      deps.chatbotContext.caches.known.delete(on.bot.uniqueId);
      await stack.client.sendMessage(visitor(on.bot.uniqueId, 'Unknown, handoff on', { sessionId: on.sessionId }));
      expect(readAlong.at(-1)).toEqual([]);
      expect(gets).toBe(1);
      await stack.client.sendMessage(visitor(off.bot.uniqueId, 'Known, handoff off', { sessionId: off.sessionId }));
      deps.chatbotContext.caches.known.delete(off.bot.uniqueId);
      await stack.client.sendMessage(visitor(off.bot.uniqueId, 'Unknown, handoff off', { sessionId: off.sessionId }));
      expect(readAlong.slice(-2).flat()).not.toContain(key(off));
      expect(gets).toBe(1);
    } finally {
      deps.admission = admission;
      deps.handoff = handoff;
    }
  });

  it('lets the bot answer when the mirror is stale (the store says bot), and drops the mirror', async () => {
    const c = await conversationWithHandoff('stale');
    const key = redisKeys(stack.prefix).handoff(c.bot.id, c.sessionId);
    await stack.redis.set(key, JSON.stringify({ status: 'human', agentName: 'Ghost', since: null }));
    const res = await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Hello?', { sessionId: c.sessionId }));
    expect(res.message).toBe('We open at 9am [1].');
    expect(await stack.redis.get(key)).toBeNull();
  });

  it('offers a person when the knowledge could not answer or the visitor asks for one, and says whether it was unanswered', async () => {
    const c = await conversationWithHandoff('offer');
    stack.fake.setBehaviour({ reply: 'I do not know.' });
    const unanswered = await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Do you sell bikes?', { sessionId: c.sessionId }));
    expect([unanswered.unanswered, unanswered.offerHandoff]).toEqual([true, true]);
    stack.fake.setBehaviour({ reply: 'We open at 9am [1].' });
    const answered = await stack.client.sendMessage(visitor(c.bot.uniqueId, 'When do you open?', { sessionId: c.sessionId }));
    expect([answered.unanswered, answered.offerHandoff]).toEqual([false, false]);
    const asked = await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Can I talk to a human please?', { sessionId: c.sessionId }));
    expect([asked.unanswered, asked.offerHandoff]).toEqual([false, true]);
  });
});

describe('live streams across replicas', () => {
  it("relays an agent's reply stored on one replica to the visitor's stream on another, never a note", async () => {
    const c = await conversationWithHandoff('replicas');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const last = (
      await stack.parts.prisma.message.findFirstOrThrow({ where: { conversationId: c.conversationId }, orderBy: { id: 'desc' } })
    ).id;
    const stream = read((signal) =>
      stack.client.watchConversation({ ...request(c.bot.uniqueId, c.sessionId), afterMessageId: last.toString() }, { signal }),
    );
    try {
      await until(() => stream.events.length >= 1);
      expect(statesOf(stream.events)).toEqual(['waiting']);
      expect(messagesOf(stream.events)).toEqual([]);

      const reply = await replica.client.replyToConversation({
        ...c.owner,
        agent: agent('Ada'),
        content: 'Hi, Ada here.',
        clientMessageId: clientMessageId(),
      });
      expect(reply.message?.role).toBe('agent');
      expect(reply.message?.authorName).toBe('Ada');
      expect(reply.item?.state?.status).toBe('human');
      await replica.client.addConversationNote({
        ...c.owner,
        agent: agent('Ada'),
        content: 'VIP customer',
        clientMessageId: clientMessageId(),
      });
      await replica.client.sendMessage(visitor(c.bot.uniqueId, 'Thanks Ada', { sessionId: c.sessionId }));
      await until(() => messagesOf(stream.events).length >= 2);
      expect(messagesOf(stream.events)).toEqual([
        ['agent', 'Hi, Ada here.', 'Ada'],
        ['user', 'Thanks Ada', ''],
      ]);
      expect(statesOf(stream.events)).toEqual(['waiting', 'human']);
    } finally {
      await stream.stop();
    }
    expect(stream.error()).toBeUndefined();
    // The last stream gone, the replica no longer listens to the channel.
    await until(() => stack.parts.deps.handoffCore.hub.channels().length === 0);
  });

  it('catches a reconnecting visitor up on what was stored while no stream listened', async () => {
    const c = await conversationWithHandoff('catch-up');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const seen = (
      await stack.parts.prisma.message.findFirstOrThrow({ where: { conversationId: c.conversationId }, orderBy: { id: 'desc' } })
    ).id;
    await stack.client.replyToConversation({ ...c.owner, agent: agent('Ada'), content: 'First reply', clientMessageId: clientMessageId() });
    await stack.client.addConversationNote({ ...c.owner, agent: agent('Ada'), content: 'a note', clientMessageId: clientMessageId() });
    await stack.client.replyToConversation({
      ...c.owner,
      agent: agent('Ada'),
      content: 'Second reply',
      clientMessageId: clientMessageId(),
    });

    const stream = read((signal) =>
      replica.client.watchConversation({ ...request(c.bot.uniqueId, c.sessionId), afterMessageId: seen.toString() }, { signal }),
    );
    try {
      await until(() => messagesOf(stream.events).length >= 2);
      expect(statesOf(stream.events)).toEqual(['human']);
      expect(messagesOf(stream.events)).toEqual([
        ['agent', 'First reply', 'Ada'],
        ['agent', 'Second reply', 'Ada'],
      ]);
    } finally {
      await stream.stop();
    }
  });
});

describe('a lost subscriber connection', () => {
  it('ends the streams it carried, and the visitor catches up on reconnecting', async () => {
    const c = await conversationWithHandoff('lost-connection');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const hub = replica.parts.deps.handoffCore.hub;
    const first = read((signal) =>
      replica.client.watchConversation({ ...request(c.bot.uniqueId, c.sessionId), afterMessageId: '' }, { signal }),
    );
    await until(() => messagesOf(first.events).length >= 2);
    const seen = (first.events.filter((e) => e.event.case === 'message').at(-1)!.event.value as { id: string }).id;

    const clients = (await stack.redis.client('LIST')) as string;
    const id = clients
      .split('\n')
      .find((line) => line.includes(`name=${hub.connectionName} `))
      ?.match(/^id=(\d+)/)?.[1];
    expect(id).toBeDefined();
    await stack.redis.client('KILL', 'ID', id!);
    await until(() => first.ended());
    expect(first.error()).toBeUndefined();
    expect(hub.channels()).toEqual([]);

    await stack.client.replyToConversation({
      ...c.owner,
      agent: agent('Ada'),
      content: 'Stored while nobody listened',
      clientMessageId: clientMessageId(),
    });
    const again = read((signal) =>
      replica.client.watchConversation({ ...request(c.bot.uniqueId, c.sessionId), afterMessageId: seen }, { signal }),
    );
    try {
      await until(() => messagesOf(again.events).length >= 1);
      expect(messagesOf(again.events)).toEqual([['agent', 'Stored while nobody listened', 'Ada']]);
      // And live again on the new connection.
      await stack.client.replyToConversation({ ...c.owner, agent: agent('Ada'), content: 'And live', clientMessageId: clientMessageId() });
      await until(() => messagesOf(again.events).length >= 2);
      expect(messagesOf(again.events).at(-1)).toEqual(['agent', 'And live', 'Ada']);
    } finally {
      await again.stop();
    }
  });
});

describe('the inbox', () => {
  it('lists waiting and open conversations, counts the waiting ones and streams each change', async () => {
    const a = await conversationWithHandoff('inbox-a');
    const inbox = read((signal) => stack.client.watchInbox({ ownerId: a.bot.ownerId }, { signal }));
    try {
      await until(() => stack.parts.deps.handoffCore.hub.channels().includes(redisKeys(stack.prefix).inboxChannel(a.bot.ownerId)));
      await stack.client.requestHandoff(request(a.bot.uniqueId, a.sessionId));
      const waiting = await stack.client.listInbox({ ownerId: a.bot.ownerId });
      expect(waiting.waiting.map((i) => [i.conversationId, i.state?.status, i.lastMessage])).toEqual([
        [a.conversationId, 'waiting', 'We open at 9am [1].'],
      ]);
      expect(waiting.open).toEqual([]);
      expect((await stack.client.countWaiting({ ownerId: a.bot.ownerId })).waiting).toBe(1);

      await replica.client.claimConversation({ ...a.owner, agent: agent('Ada') });
      const open = await stack.client.listInbox({ ownerId: a.bot.ownerId });
      expect(open.waiting).toEqual([]);
      expect(open.open.map((i) => [i.conversationId, i.state?.agentName])).toEqual([[a.conversationId, 'Ada']]);
      expect((await stack.client.countWaiting({ ownerId: a.bot.ownerId })).waiting).toBe(0);

      await until(() => inbox.events.length >= 2);
      expect(inbox.events.map((e) => [e.item?.conversationId, e.item?.state?.status])).toEqual([
        [a.conversationId, 'waiting'],
        [a.conversationId, 'human'],
      ]);

      const one = await stack.client.getInboxConversation(a.owner);
      expect(one.item?.state?.status).toBe('human');
      expect(one.conversation?.handoffStatus).toBe('human');
      expect(one.conversation?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    } finally {
      await inbox.stop();
    }
  });

  it('is Pro only: refused for a free workspace, and its waiting count reads 0', async () => {
    const c = await conversationWithHandoff('inbox-free', { pro: false });
    for (const call of [
      () => stack.client.listInbox({ ownerId: c.bot.ownerId }),
      () => stack.client.getInboxConversation(c.owner),
      () => stack.client.claimConversation({ ...c.owner, agent: agent() }),
      () => stack.client.replyToConversation({ ...c.owner, agent: agent(), content: 'Hi', clientMessageId: clientMessageId() }),
    ]) {
      const err = await rpcError(call());
      expect(err.code).toBe(Code.PermissionDenied);
      expect(err.rawMessage).toBe('The live inbox is available on the Pro plan.');
    }
    expect((await stack.client.countWaiting({ ownerId: c.bot.ownerId })).waiting).toBe(0);
    // And the visitor cannot ask for a person of a free owner's chatbot.
    expect((await rpcError(stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId)))).code).toBe(Code.FailedPrecondition);
  });
});

describe('replies', () => {
  it('stores a reply exactly once under concurrent retries of one client message id, and claims a waiting conversation', async () => {
    const c = await conversationWithHandoff('once');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const id = clientMessageId();
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? replica : stack).client.replyToConversation({
          ...c.owner,
          agent: agent('Ada'),
          content: 'Only once',
          clientMessageId: id,
        }),
      ),
    );
    expect(new Set(replies.map((r) => r.message?.id)).size).toBe(1);
    const stored = await stack.parts.prisma.message.findMany({ where: { conversationId: c.conversationId, role: 'agent' } });
    expect(stored.map((m) => m.content)).toEqual(['Only once']);
    expect(await statusOf(c.conversationId)).toBe('human');
    expect((await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } })).assigneeName).toBe('Ada');
  });

  it('refuses a reply while the bot has the conversation', async () => {
    const c = await conversationWithHandoff('bot-has-it');
    const err = await rpcError(
      stack.client.replyToConversation({ ...c.owner, agent: agent(), content: 'Hi', clientMessageId: clientMessageId() }),
    );
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(await stack.parts.prisma.message.count({ where: { conversationId: c.conversationId, role: 'agent' } })).toBe(0);
  });

  it("gives the bot the agent's replies as its own turns after a hand back, never the notes", async () => {
    const c = await conversationWithHandoff('hand-back');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    await stack.client.replyToConversation({
      ...c.owner,
      agent: agent('Ada'),
      content: 'Your order ships Monday.',
      clientMessageId: clientMessageId(),
    });
    await stack.client.addConversationNote({ ...c.owner, agent: agent('Ada'), content: 'SECRET NOTE', clientMessageId: clientMessageId() });
    await stack.client.handBackConversation({ ...c.owner, agent: agent('Ada') });
    await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Thanks!', { sessionId: c.sessionId }));
    const prompt = stack.fake.requests.at(-1)!.messages;
    expect(prompt.filter((m) => m.role === 'assistant').map((m) => m.content)).toContain('Your order ships Monday.');
    expect(JSON.stringify(prompt)).not.toContain('SECRET NOTE');
  });
});

describe("the visitor's own conversation only", () => {
  it('answers NOT_FOUND for a forged or unknown session id and creates nothing', async () => {
    const c = await conversationWithHandoff('forged');
    const before = await stack.parts.prisma.conversation.count();
    // One character off the real id: whatever it ends in, the last one is changed.
    const oneOff = `${c.sessionId.slice(0, -1)}${c.sessionId.endsWith('x') ? 'y' : 'x'}`;
    for (const sessionId of ['made-up', oneOff, session('never-used')]) {
      expect((await rpcError(stack.client.requestHandoff(request(c.bot.uniqueId, sessionId)))).code).toBe(Code.NotFound);
      const stream = read((signal) =>
        stack.client.watchConversation({ ...request(c.bot.uniqueId, sessionId), afterMessageId: '' }, { signal }),
      );
      await until(() => stream.ended());
      expect((stream.error() as { code?: number } | undefined)?.code).toBe(Code.NotFound);
    }
    expect(await stack.parts.prisma.conversation.count()).toBe(before);
    expect(await statusOf(c.conversationId)).toBe('bot');
  });

  it("refuses another workspace's conversation as NOT_FOUND", async () => {
    const mine = await conversationWithHandoff('mine');
    const theirs = await conversationWithHandoff('theirs');
    await stack.client.requestHandoff(request(theirs.bot.uniqueId, theirs.sessionId));
    const other = { ownerId: mine.bot.ownerId, conversationId: theirs.conversationId };
    for (const call of [
      () => stack.client.getInboxConversation(other),
      () => stack.client.claimConversation({ ...other, agent: agent() }),
      () => stack.client.replyToConversation({ ...other, agent: agent(), content: 'Hi', clientMessageId: clientMessageId() }),
      () => stack.client.addConversationNote({ ...other, agent: agent(), content: 'Hi', clientMessageId: clientMessageId() }),
      () => stack.client.handBackConversation({ ...other, agent: agent() }),
      () => stack.client.closeConversation({ ...other, agent: agent() }),
    ]) {
      const err = await rpcError(call());
      expect(err.code).toBe(Code.NotFound);
      expect(err.rawMessage).toBe('Conversation not found');
    }
    expect(await statusOf(theirs.conversationId)).toBe('waiting');
  });
});
