// Humans in the loop, what happens beside the calls (docs/adr/0034-humans-in-the-loop.md): the
// wait's deadline (a delayed job, and the use case its worker calls), the agents told once per
// conversation (HandoffRequested and the handoff.requested webhook), the agent's summary paid like
// an answer (offline: free), and bad input to every new method.
import { Code } from '@connectrpc/connect';
import { Queue } from 'bullmq';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandoffRequestedSchema, HandoffTimeoutDueSchema } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import { QUEUES, safeJobId } from '@parley/common/queues.ts';
import type { WebhookEventInput } from '@parley/common/webhook-events.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { handoffTimedOut, TIMEOUT_MESSAGE } from '../../src/handoff/handoff-timeout.ts';
import { agent, clientMessageId, enableHandoff, read, until } from './handoff-helpers.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack, type ChatUnderTest } from './harness.ts';

let stack: ChatStack;
let replica: ChatUnderTest;
/** A chat instance without a model (offline mode) on the same database. */
let offline: ChatUnderTest;

beforeAll(async () => {
  stack = await startChatStack();
  replica = await stack.startChat({ CHAT_DB_SCHEMA: stack.config.CHAT_DB_SCHEMA });
  offline = await stack.startChat({ CHAT_DB_SCHEMA: stack.config.CHAT_DB_SCHEMA, OPENAI_API_KEY: undefined });
});
afterAll(async () => {
  await stack?.stop();
});

async function conversationWithHandoff(label: string, timeoutSeconds = 300) {
  const bot = await stack.newChatbot({ knowledge: ['The shop opens at 9am.'] });
  await stack.makePro(bot.ownerId);
  await enableHandoff(stack.chatbots, bot, timeoutSeconds);
  stack.fake.setBehaviour({ reply: 'We open at 9am [1].' });
  const sessionId = session(label);
  await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId }));
  const conversation = await stack.parts.prisma.conversation.findUniqueOrThrow({
    where: { chatbotId_sessionId: { chatbotId: bot.id, sessionId } },
  });
  return { bot, sessionId, conversationId: conversation.id, owner: { ownerId: bot.ownerId, conversationId: conversation.id } };
}

const request = (uniqueId: string, sessionId: string) => ({ uniqueId, sessionId, clientIp: '203.0.113.7' });

async function jobsOf(queueName: string) {
  const queue = new Queue(queueName, { connection: stack.redis, prefix: stack.prefix });
  try {
    return await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
  } finally {
    await queue.close();
  }
}

describe("the owner's wait", () => {
  it('queues a delayed job per request, with the chatbot’s timeout as its delay', async () => {
    const c = await conversationWithHandoff('deadline', 45);
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const { handoffRequestedAt } = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } });
    const jobs = (await jobsOf(QUEUES.handoffTimeout)).filter(
      (j) => j.id === safeJobId(`${c.conversationId}:${handoffRequestedAt!.getTime()}`),
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0].opts.delay).toBe(45_000);
    expect(await jobs[0].isDelayed()).toBe(true);
    const due = fromJson(HandoffTimeoutDueSchema, jobs[0].data as JsonValue);
    expect(due.conversationId).toBe(c.conversationId);
  });

  it('moves waiting → bot for the same request only, stores the system message and publishes the state with timed_out', async () => {
    const c = await conversationWithHandoff('timeout');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const { handoffRequestedAt } = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } });
    const seen = (
      await stack.parts.prisma.message.findFirstOrThrow({ where: { conversationId: c.conversationId }, orderBy: { id: 'desc' } })
    ).id;
    const stream = read((signal) =>
      replica.client.watchConversation({ ...request(c.bot.uniqueId, c.sessionId), afterMessageId: seen.toString() }, { signal }),
    );
    try {
      await until(() => stream.events.length >= 1);
      // An older request's deadline changes nothing.
      expect(
        await handoffTimedOut(stack.parts.deps.handoffCore, {
          conversationId: c.conversationId,
          requestedAt: new Date(handoffRequestedAt!.getTime() - 1),
        }),
      ).toBe(false);
      expect(
        await handoffTimedOut(stack.parts.deps.handoffCore, { conversationId: c.conversationId, requestedAt: handoffRequestedAt! }),
      ).toBe(true);
      // Redelivered: nothing more.
      expect(
        await handoffTimedOut(stack.parts.deps.handoffCore, { conversationId: c.conversationId, requestedAt: handoffRequestedAt! }),
      ).toBe(false);
      await until(() => stream.events.length >= 3);
      expect(
        stream.events.map((e) => [
          e.event.case,
          e.event.value && 'status' in e.event.value ? e.event.value.status : (e.event.value as { content: string }).content,
        ]),
      ).toEqual([
        ['state', 'waiting'],
        ['message', TIMEOUT_MESSAGE],
        ['state', 'bot'],
      ]);
      const last = stream.events[2].event.value as { timedOut: boolean };
      expect(last.timedOut).toBe(true);
    } finally {
      await stream.stop();
    }
    const conversation = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } });
    expect(conversation.handoffStatus).toBe('bot');
    expect(await stack.redis.get(redisKeys(stack.prefix).handoff(c.bot.id, c.sessionId))).toBeNull();
    const system = await stack.parts.prisma.message.findMany({ where: { conversationId: c.conversationId, role: 'system' } });
    expect(system.map((m) => m.content)).toEqual([TIMEOUT_MESSAGE]);
    // The bot answers again.
    expect((await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Hello?', { sessionId: c.sessionId }))).message).toBe(
      'We open at 9am [1].',
    );
  });

  it('leaves a claimed conversation alone when its deadline comes', async () => {
    const c = await conversationWithHandoff('claimed-in-time');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    await stack.client.claimConversation({ ...c.owner, agent: agent() });
    const { handoffRequestedAt } = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } });
    expect(
      await handoffTimedOut(stack.parts.deps.handoffCore, { conversationId: c.conversationId, requestedAt: handoffRequestedAt! }),
    ).toBe(false);
    expect((await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } })).handoffStatus).toBe('human');
  });
});

describe('the agents told', () => {
  it('once per conversation, under concurrent requests on two replicas and after a close and a new request', async () => {
    const c = await conversationWithHandoff('notify');
    const published: string[] = [];
    const webhooks: WebhookEventInput[] = [];
    const originals = [stack.parts.deps.handoffCore.handoffRequested, replica.parts.deps.handoffCore.handoffRequested];
    const originalWebhooks = [stack.parts.deps.handoffCore.webhooks, replica.parts.deps.handoffCore.webhooks];
    for (const [i, parts] of [stack.parts, replica.parts].entries()) {
      parts.deps.handoffCore.handoffRequested = {
        publish: async (event, jobId, opts) => {
          published.push(jobId);
          await originals[i].publish(event, jobId, opts);
        },
      };
      parts.deps.handoffCore.webhooks = { publish: async (events) => void webhooks.push(...events) };
    }
    try {
      const states = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? replica : stack).client.requestHandoff(request(c.bot.uniqueId, c.sessionId))),
      );
      expect(states.every((s) => s.state?.status === 'waiting')).toBe(true);
      await stack.client.closeConversation({ ...c.owner, agent: agent() });
      await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
      expect(published).toEqual([c.conversationId]);
      // The webhook names the conversation by its session id, as message.created does.
      expect(webhooks).toHaveLength(1);
      expect(webhooks[0]).toMatchObject({
        id: `handoff:${c.conversationId}`,
        type: 'handoff.requested',
        ownerId: c.bot.ownerId,
        data: { chatbotId: c.bot.id, conversationId: c.sessionId, lastMessage: 'When do you open?' },
      });
    } finally {
      stack.parts.deps.handoffCore.handoffRequested = originals[0];
      replica.parts.deps.handoffCore.handoffRequested = originals[1];
      stack.parts.deps.handoffCore.webhooks = originalWebhooks[0];
      replica.parts.deps.handoffCore.webhooks = originalWebhooks[1];
    }
    const jobs = (await jobsOf(QUEUES.handoffRequested)).filter((j) => j.id === c.conversationId);
    expect(jobs).toHaveLength(1);
    const event = fromJson(HandoffRequestedSchema, jobs[0].data as JsonValue);
    expect(event).toMatchObject({
      conversationId: c.conversationId,
      ownerId: c.bot.ownerId,
      chatbotId: c.bot.id,
      lastMessage: 'When do you open?',
    });
    expect((await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: c.conversationId } })).notifiedAt).not.toBeNull();
  });
});

describe("the agent's summary", () => {
  it('is one model call with a credit hold and a UsageRecorded, kept until messages come', async () => {
    const c = await conversationWithHandoff('summary');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    await stack.client.addConversationNote({
      ...c.owner,
      agent: agent(),
      content: 'NOTE NEVER SUMMARISED',
      clientMessageId: clientMessageId(),
    });
    stack.fake.setBehaviour({ reply: '- The visitor asks when the shop opens.' });
    const calls = stack.fake.requests.length;
    const first = await stack.client.summarizeConversation(c.owner);
    expect(first.summary).toBe('- The visitor asks when the shop opens.');
    expect(stack.fake.requests.length).toBe(calls + 1);
    const prompt = JSON.stringify(stack.fake.requests.at(-1)!.messages);
    expect(prompt).toContain('Visitor: When do you open?');
    expect(prompt).not.toContain('NOTE NEVER SUMMARISED');
    const usage = (await stack.usageJobs()).filter((u) => u.chatbotId === c.bot.id);
    // The answer to the first message, then the summary.
    expect(usage).toHaveLength(2);
    const hold = await stack.billing.prisma.creditReservation.findUnique({ where: { requestId: usage[1].requestId } });
    expect(hold).not.toBeNull();
    expect(usage[1]).toMatchObject({ ownerId: c.bot.ownerId, chatbotName: 'Helper' });

    // Kept: no new message, no new call.
    expect((await replica.client.summarizeConversation(c.owner)).summary).toBe(first.summary);
    expect(stack.fake.requests.length).toBe(calls + 1);
    // A message came: made again.
    await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Are you open on Sunday?', { sessionId: c.sessionId }));
    stack.fake.setBehaviour({ reply: '- Also asks about Sunday.' });
    expect((await stack.client.summarizeConversation(c.owner)).summary).toBe('- Also asks about Sunday.');
    expect(stack.fake.requests.length).toBe(calls + 2);
  });

  it("is the visitor's first and latest questions in offline mode, free", async () => {
    const c = await conversationWithHandoff('summary-offline');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    await stack.client.sendMessage(visitor(c.bot.uniqueId, 'Can I return shoes?', { sessionId: c.sessionId }));
    const calls = stack.fake.requests.length;
    const usage = (await stack.usageJobs()).length;
    expect((await offline.client.summarizeConversation(c.owner)).summary).toBe(
      'First question: When do you open?\nLatest question: Can I return shoes?',
    );
    expect(stack.fake.requests.length).toBe(calls);
    expect((await stack.usageJobs()).length).toBe(usage);
  });
});

describe('a visitor asking for a person, checked like a message', () => {
  it("counts against the visitor's rate limit and is refused where the chatbot may not run, moving nothing", async () => {
    const c = await conversationWithHandoff('checked');
    const strict = await stack.startChat({ CHAT_DB_SCHEMA: stack.config.CHAT_DB_SCHEMA, CHAT_RATE_PER_VISITOR: '2' });
    const from = { ...request(c.bot.uniqueId, c.sessionId), clientIp: '198.51.100.23' };
    await strict.client.requestHandoff(from);
    await strict.client.requestHandoff(from);
    const limited = await rpcError(strict.client.requestHandoff(from));
    expect(limited.code).toBe(Code.ResourceExhausted);

    const other = await conversationWithHandoff('checked-site');
    await stack.chatbots.updateChatbot({
      ownerId: other.bot.ownerId,
      chatbotId: other.bot.id,
      embedding: { allowedDomains: { domains: ['shop.example.com'] } },
    });
    const refused = await rpcError(
      stack.client.requestHandoff({ ...request(other.bot.uniqueId, other.sessionId), siteHost: 'elsewhere.example' }),
    );
    expect(refused.code).toBe(Code.PermissionDenied);
    expect((await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: other.conversationId } })).handoffStatus).toBe('bot');
    const allowed = await stack.client.requestHandoff({ ...request(other.bot.uniqueId, other.sessionId), siteHost: 'shop.example.com' });
    expect(allowed.state?.status).toBe('waiting');
  });
});

describe('a replica stopping', () => {
  it('ends its live streams with the background work, so its server drains', async () => {
    const c = await conversationWithHandoff('stopping');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const leaving = await stack.startChat({ CHAT_DB_SCHEMA: stack.config.CHAT_DB_SCHEMA });
    const visitorStream = read((signal) =>
      leaving.client.watchConversation({ ...request(c.bot.uniqueId, c.sessionId), afterMessageId: '' }, { signal }),
    );
    const inbox = read((signal) => leaving.client.watchInbox({ ownerId: c.bot.ownerId }, { signal }));
    await until(() => visitorStream.events.length > 0 && leaving.parts.deps.handoffCore.hub.channels().length === 2);
    for (const stop of leaving.parts.background ?? []) await stop();
    await until(() => visitorStream.ended() && inbox.ended());
    expect([visitorStream.error(), inbox.error()]).toEqual([undefined, undefined]);
  });
});

describe('bad input to every new method', () => {
  it('answers a clear 4xx, never a 500', async () => {
    const c = await conversationWithHandoff('bad-input');
    await stack.client.requestHandoff(request(c.bot.uniqueId, c.sessionId));
    const long = 'x'.repeat(stack.config.MAX_MESSAGE_CHARS + 1);
    const cases: [string, () => Promise<unknown>, Code][] = [
      ['request: unknown chatbot', () => stack.client.requestHandoff(request('no-such-bot', c.sessionId)), Code.NotFound],
      ['request: malformed chatbot', () => stack.client.requestHandoff(request('bad id!', c.sessionId)), Code.NotFound],
      ['request: no session', () => stack.client.requestHandoff(request(c.bot.uniqueId, '')), Code.NotFound],
      ['list: no owner', () => stack.client.listInbox({ ownerId: ' ' }), Code.InvalidArgument],
      ['count: no owner', () => stack.client.countWaiting({ ownerId: '' }), Code.InvalidArgument],
      ['get: not an id', () => stack.client.getInboxConversation({ ownerId: c.bot.ownerId, conversationId: 'nope' }), Code.NotFound],
      [
        'get: unknown id',
        () => stack.client.getInboxConversation({ ownerId: c.bot.ownerId, conversationId: crypto.randomUUID() }),
        Code.NotFound,
      ],
      ['claim: no agent', () => stack.client.claimConversation(c.owner), Code.InvalidArgument],
      [
        'claim: agent name too long',
        () => stack.client.claimConversation({ ...c.owner, agent: { id: 'u', name: 'n'.repeat(201) } }),
        Code.InvalidArgument,
      ],
      [
        'reply: empty',
        () => stack.client.replyToConversation({ ...c.owner, agent: agent(), content: '  ', clientMessageId: clientMessageId() }),
        Code.InvalidArgument,
      ],
      [
        'reply: too long',
        () => stack.client.replyToConversation({ ...c.owner, agent: agent(), content: long, clientMessageId: clientMessageId() }),
        Code.InvalidArgument,
      ],
      [
        'reply: control character',
        () => stack.client.replyToConversation({ ...c.owner, agent: agent(), content: 'a\u0007b', clientMessageId: clientMessageId() }),
        Code.InvalidArgument,
      ],
      [
        'reply: bad client id',
        () => stack.client.replyToConversation({ ...c.owner, agent: agent(), content: 'Hi', clientMessageId: 'x' }),
        Code.InvalidArgument,
      ],
      [
        'note: empty',
        () => stack.client.addConversationNote({ ...c.owner, agent: agent(), content: '', clientMessageId: clientMessageId() }),
        Code.InvalidArgument,
      ],
      [
        'note: no client id',
        () => stack.client.addConversationNote({ ...c.owner, agent: agent(), content: 'Hi', clientMessageId: '' }),
        Code.InvalidArgument,
      ],
      [
        'hand back: not an id',
        () => stack.client.handBackConversation({ ownerId: c.bot.ownerId, conversationId: '1', agent: agent() }),
        Code.NotFound,
      ],
      ['close: no agent', () => stack.client.closeConversation(c.owner), Code.InvalidArgument],
      ['summarize: not an id', () => stack.client.summarizeConversation({ ownerId: c.bot.ownerId, conversationId: 'x' }), Code.NotFound],
    ];
    for (const [what, call, code] of cases) {
      expect((await rpcError(call())).code, what).toBe(code);
    }
    const stream = read((signal) =>
      stack.client.watchConversation({ ...request(c.bot.uniqueId, c.sessionId), afterMessageId: 'abc' }, { signal }),
    );
    await until(() => stream.ended());
    expect((stream.error() as { code?: number }).code).toBe(Code.InvalidArgument);
    const inbox = read((signal) => stack.client.watchInbox({ ownerId: '' }, { signal }));
    await until(() => inbox.ended());
    expect((inbox.error() as { code?: number }).code).toBe(Code.InvalidArgument);
    // Nothing was stored by any of it.
    expect(await stack.parts.prisma.message.count({ where: { conversationId: c.conversationId, role: { in: ['agent', 'note'] } } })).toBe(
      0,
    );
  });
});
