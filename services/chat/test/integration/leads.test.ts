// Leads (docs/adr/0034-humans-in-the-loop.md), through the real chat, chatbot and billing services:
// the public lookup forwards the lead form and whether a visitor may ask for a person; SubmitLead
// starts a conversation when the visitor has none, keeps one lead per conversation, raises
// lead.created once, counts against the visitor's rate limit and is refused where the chatbot may
// not run; ListLeads pages a workspace's leads newest first; deleted chatbots and accounts take
// their leads with them.
import { create, fromJson, type JsonValue } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AllowedDomainsSchema,
  EmbeddingChangeSchema,
  HandoffChangeSchema,
  LeadFormChangeSchema,
} from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { WebhookService } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { WebhookEventBatchSchema, WebhookEventSchema } from '@parley/proto/parley/events/v1/webhook_event_pb.js';
import { QUEUES } from '@parley/common/queues.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { deleteChatbotConversations } from '../../src/conversations/delete-conversations.ts';
import { deleteOwnerConversations } from '../../src/conversations/delete-owner-conversations.ts';
import { redisRecentTurns } from '../../src/public-chat/recent-turns.ts';
import { CONSENT_REQUIRED, EMAIL_INVALID, fieldNotAsked, fieldRequired, NO_LEAD_FORM } from '../../src/leads/lead-input.ts';
import { CURSOR_INVALID, LIMIT_INVALID } from '../../src/leads/list-leads.ts';
import { DATES_FORMAT } from '../../src/export/export-conversations.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;

beforeAll(async () => {
  // The webhook endpoint names a loopback address, which only local use may (the stack reads process.env).
  process.env.KNOWLEDGE_URL_ALLOW_PRIVATE = '1';
  stack = await startChatStack();
});

afterAll(async () => {
  await stack?.stop();
  delete process.env.KNOWLEDGE_URL_ALLOW_PRIVATE;
});

/** A chatbot whose form asks for these fields (the rest off). */
async function botWithForm(form: { name?: string; email?: string; phone?: string; consentText?: string } = { email: 'required' }) {
  const bot = await stack.newChatbot({ knowledge: ['We open at nine and close at five.'] });
  await stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, leadForm: create(LeadFormChangeSchema, form) });
  return bot;
}

const lead = (
  uniqueId: string,
  fields: Partial<{
    sessionId: string;
    name: string;
    email: string;
    phone: string;
    consented: boolean;
    source: string;
    siteHost: string;
    clientIp: string;
  }> = {},
) => ({
  uniqueId,
  sessionId: '',
  name: '',
  email: '',
  phone: '',
  consented: false,
  clientIp: '203.0.113.50',
  userAgent: 'Mozilla/5.0 (test)',
  source: '',
  ...fields,
});

/** The lead.created events published to parley.webhook-events so far. */
async function leadEvents(): Promise<{ id: string; ownerId: string; data: Record<string, unknown> }[]> {
  // The service's publisher (deps.webhooks), flushed so what it gathered is in the queue.
  await (stack.parts.deps.webhooks as WebhookPublisher).flush();
  const queue = new Queue(QUEUES.webhookEvents, { connection: stack.redis, prefix: stack.prefix });
  try {
    const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
    return jobs
      .flatMap((j) =>
        j.name === WebhookEventBatchSchema.typeName
          ? fromJson(WebhookEventBatchSchema, j.data as JsonValue).events
          : [fromJson(WebhookEventSchema, j.data as JsonValue)],
      )
      .filter((e) => e.type === 'lead.created')
      .map((e) => ({ id: e.id, ownerId: e.ownerId, data: JSON.parse(e.dataJson) as Record<string, unknown> }));
  } finally {
    await queue.close();
  }
}

describe('GetPublicChatbot', () => {
  it('forwards the lead form, and handoff only while it is on and the owner is pro', async () => {
    const bot = await botWithForm({ name: 'optional', email: 'required', consentText: 'I agree to be contacted.' });
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      leadForm: create(LeadFormChangeSchema, { trigger: 'after_messages', afterMessages: 2 }),
    });
    const profile = await stack.client.getPublicChatbot({ uniqueId: bot.uniqueId });
    expect(profile.leadForm).toMatchObject({
      name: 'optional',
      email: 'required',
      phone: 'off',
      trigger: 'after_messages',
      afterMessages: 2,
      consentText: 'I agree to be contacted.',
    });
    expect(profile.handoff).toBe(false);

    await stack.makePro(bot.ownerId);
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      handoff: create(HandoffChangeSchema, { enabled: true }),
    });
    expect((await stack.client.getPublicChatbot({ uniqueId: bot.uniqueId })).handoff).toBe(true);
    await stack.billing.prisma.account.update({ where: { ownerId: bot.ownerId }, data: { plan: 'free' } });
    expect((await stack.client.getPublicChatbot({ uniqueId: bot.uniqueId })).handoff).toBe(false);
  });
});

describe('SubmitLead', () => {
  it('starts a conversation for a visitor without one, which their next message continues; one lead per conversation, lead.created once', async () => {
    const bot = await botWithForm({ name: 'optional', email: 'required', phone: 'optional', consentText: 'I agree to be contacted.' });
    const hooks = createServiceClient(WebhookService, stack.chatbotUrl);
    await hooks.createWebhookEndpoint({ ownerId: bot.ownerId, url: 'http://127.0.0.1:9/parley', events: ['lead.created'] });

    const first = await stack.client.submitLead(
      lead(bot.uniqueId, { sessionId: 'made-up', name: ' Ada ', email: 'ada@example.com', consented: true }),
    );
    expect(first.sessionId).not.toBe('made-up');
    expect(first.sessionId).toMatch(/^[A-Za-z0-9_-]{38}$/);
    const conversation = await stack.parts.prisma.conversation.findUniqueOrThrow({
      where: { chatbotId_sessionId: { chatbotId: bot.id, sessionId: first.sessionId } },
      include: { lead: true },
    });
    expect(conversation).toMatchObject({ ownerId: bot.ownerId, messageCount: 0, userIp: '203.0.113.50' });
    expect(conversation.lead).toMatchObject({
      id: first.leadId,
      chatbotId: bot.id,
      ownerId: bot.ownerId,
      name: 'Ada',
      email: 'ada@example.com',
      phone: null,
      consented: true,
      consentText: 'I agree to be contacted.',
      source: 'form',
    });

    // The visitor's next message is part of the same conversation.
    await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId: first.sessionId }));
    const continued = await stack.parts.prisma.conversation.findMany({ where: { chatbotId: bot.id } });
    expect(continued).toHaveLength(1);
    expect(continued[0]).toMatchObject({ id: conversation.id, messageCount: 2 });

    // A second submission fills in what it gives, on the same lead.
    const second = await stack.client.submitLead(
      lead(bot.uniqueId, { sessionId: first.sessionId, email: 'ada@lovelace.example', phone: '+44 20 7946 0958', consented: true }),
    );
    expect(second).toEqual(expect.objectContaining({ leadId: first.leadId, sessionId: first.sessionId }));
    expect(await stack.parts.prisma.lead.findMany({ where: { chatbotId: bot.id } })).toEqual([
      expect.objectContaining({ name: 'Ada', email: 'ada@lovelace.example', phone: '+44 20 7946 0958', consented: true }),
    ]);

    const events = (await leadEvents()).filter((e) => e.ownerId === bot.ownerId);
    expect(events).toEqual([
      {
        id: `lead:${first.leadId}`,
        ownerId: bot.ownerId,
        data: expect.objectContaining({
          chatbotId: bot.id,
          conversationId: first.sessionId,
          leadId: first.leadId,
          name: 'Ada',
          email: 'ada@example.com',
          phone: '',
          consented: true,
          source: 'form',
        }),
      },
    ]);
  });

  it("keeps an answered conversation's lead on that conversation", async () => {
    const bot = await botWithForm({ email: 'required' });
    const sessionId = session('lead-after-messages');
    await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId }));
    const res = await stack.client.submitLead(lead(bot.uniqueId, { sessionId, email: 'grace@example.com' }));
    expect(res.sessionId).toBe(sessionId);
    const conversation = await stack.parts.prisma.conversation.findUniqueOrThrow({
      where: { chatbotId_sessionId: { chatbotId: bot.id, sessionId } },
      include: { lead: true },
    });
    expect(conversation.messageCount).toBe(2);
    expect(conversation.lead).toMatchObject({ email: 'grace@example.com', consented: false, consentText: null });
  });

  it.each([
    ['a field the form has off', { email: 'a@b.co', name: 'Ada' }, Code.InvalidArgument, fieldNotAsked('name')],
    ['a required field left out', { phone: '123456' }, Code.InvalidArgument, fieldRequired('email')],
    ['a bad email', { email: 'ada' }, Code.InvalidArgument, EMAIL_INVALID],
    ['the consent line unticked', { email: 'a@b.co' }, Code.InvalidArgument, CONSENT_REQUIRED],
  ])('refuses %s, storing nothing', async (_, fields, code, message) => {
    const bot = await botWithForm({ email: 'required', phone: 'optional', consentText: 'Yes, contact me.' });
    const err = await rpcError(stack.client.submitLead(lead(bot.uniqueId, fields)));
    expect([err.code, err.rawMessage]).toEqual([code, message]);
    expect(await stack.parts.prisma.conversation.count({ where: { chatbotId: bot.id } })).toBe(0);
  });

  it('refuses a chatbot without a form, except for the email after a handoff nobody answered', async () => {
    const bot = await stack.newChatbot();
    const err = await rpcError(stack.client.submitLead(lead(bot.uniqueId, { email: 'a@b.co' })));
    expect([err.code, err.rawMessage]).toEqual([Code.FailedPrecondition, NO_LEAD_FORM]);
    const res = await stack.client.submitLead(lead(bot.uniqueId, { email: 'a@b.co', source: 'handoff_timeout' }));
    expect(await stack.parts.prisma.lead.findUniqueOrThrow({ where: { id: res.leadId } })).toMatchObject({
      email: 'a@b.co',
      source: 'handoff_timeout',
      consented: false,
    });
  });

  it('is refused where the chatbot may not run, and for an unknown chatbot', async () => {
    const bot = await botWithForm();
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      embedding: create(EmbeddingChangeSchema, { allowedDomains: create(AllowedDomainsSchema, { domains: ['shop.example.com'] }) }),
    });
    const refused = await rpcError(stack.client.submitLead(lead(bot.uniqueId, { email: 'a@b.co', siteHost: 'evil.example' })));
    expect(refused.code).toBe(Code.PermissionDenied);
    expect(await stack.parts.prisma.conversation.count({ where: { chatbotId: bot.id } })).toBe(0);
    await stack.client.submitLead(lead(bot.uniqueId, { email: 'a@b.co', siteHost: 'shop.example.com' }));
    expect(await stack.parts.prisma.lead.count({ where: { chatbotId: bot.id } })).toBe(1);

    expect((await rpcError(stack.client.submitLead(lead('nosuchbot123', { email: 'a@b.co' })))).code).toBe(Code.NotFound);
  });

  it("counts against the visitor's rate limit like a message", async () => {
    const limited = await stack.startChat({ CHAT_RATE_PER_VISITOR: '2', CHAT_RATE_PER_BOT: '100' });
    const bot = await botWithForm();
    const clientIp = '198.51.100.77';
    await limited.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { clientIp }));
    await limited.client.submitLead(lead(bot.uniqueId, { email: 'a@b.co', clientIp }));
    const err = await rpcError(limited.client.submitLead(lead(bot.uniqueId, { email: 'b@b.co', clientIp })));
    expect(err.code).toBe(Code.ResourceExhausted);
    // Another visitor is not held back.
    await limited.client.submitLead(lead(bot.uniqueId, { email: 'c@b.co', clientIp: '198.51.100.78' }));
  });
});

describe('ListLeads', () => {
  it("pages a workspace's leads newest first, by chatbot and UTC day; another workspace's chatbot is NOT_FOUND", async () => {
    const a = await botWithForm();
    await stack.makePro(a.ownerId);
    const { chatbot: b } = await stack.chatbots.createChatbot({ ownerId: a.ownerId, name: 'Second' });
    await stack.chatbots.updateChatbot({
      ownerId: a.ownerId,
      chatbotId: b!.id,
      leadForm: create(LeadFormChangeSchema, { email: 'required' }),
    });
    const other = await botWithForm();

    const days = ['2026-03-01T10:00:00Z', '2026-03-02T23:59:59Z', '2026-03-03T00:00:00Z'];
    const ids: string[] = [];
    for (const [i, at] of days.entries()) {
      const { leadId } = await stack.client.submitLead(lead(i === 1 ? b!.uniqueId : a.uniqueId, { email: `v${i}@example.com` }));
      await stack.parts.prisma.lead.update({ where: { id: leadId }, data: { createdAt: new Date(at) } });
      ids.push(leadId);
    }
    await stack.client.submitLead(lead(other.uniqueId, { email: 'elsewhere@example.com' }));

    const all = await stack.client.listLeads({ ownerId: a.ownerId });
    expect(all.leads.map((l) => l.id)).toEqual([...ids].reverse());
    expect(all.nextCursor).toBe('');
    expect(all.leads[0]).toMatchObject({ chatbotId: a.id, email: 'v2@example.com', source: 'form' });
    expect(all.leads[0].conversationId).toMatch(/^[0-9a-f-]{36}$/);

    // A page at a time.
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await stack.client.listLeads({ ownerId: a.ownerId, limit: 2, cursor });
      seen.push(...page.leads.map((l) => l.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    expect((await stack.client.listLeads({ ownerId: a.ownerId, chatbotId: b!.id })).leads.map((l) => l.id)).toEqual([ids[1]]);
    expect(
      (await stack.client.listLeads({ ownerId: a.ownerId, startDate: '2026-03-02', endDate: '2026-03-02' })).leads.map((l) => l.id),
    ).toEqual([ids[1]]);
    expect((await stack.client.listLeads({ ownerId: a.ownerId, startDate: '2026-03-02' })).leads.map((l) => l.id)).toEqual([
      ids[2],
      ids[1],
    ]);

    expect((await rpcError(stack.client.listLeads({ ownerId: a.ownerId, chatbotId: other.id }))).code).toBe(Code.NotFound);
    expect((await rpcError(stack.client.listLeads({ ownerId: a.ownerId, chatbotId: 'nope' }))).code).toBe(Code.NotFound);
    for (const [req, message] of [
      [{ cursor: 'garbage' }, CURSOR_INVALID],
      [{ limit: 1001 }, LIMIT_INVALID],
      [{ limit: -1 }, LIMIT_INVALID],
      [{ startDate: '2026-02-30' }, DATES_FORMAT],
    ] as const) {
      const err = await rpcError(stack.client.listLeads({ ownerId: a.ownerId, ...req }));
      expect([err.code, err.rawMessage]).toEqual([Code.InvalidArgument, message]);
    }
  });
});

describe('deletion', () => {
  it("takes a deleted chatbot's and a deleted account's leads, and a deleted chatbot takes no new one", async () => {
    const deps = { db: stack.parts.prisma, recentTurns: redisRecentTurns(stack.redis, stack.prefix) };
    const chatbotGone = await botWithForm();
    const accountGone = await botWithForm();
    const kept = await botWithForm();
    for (const bot of [chatbotGone, accountGone, kept]) await stack.client.submitLead(lead(bot.uniqueId, { email: 'a@b.co' }));

    await deleteChatbotConversations(deps, chatbotGone.id);
    await deleteOwnerConversations(deps, { ownerId: accountGone.ownerId });

    expect(await stack.parts.prisma.lead.count({ where: { chatbotId: { in: [chatbotGone.id, accountGone.id] } } })).toBe(0);
    expect(await stack.parts.prisma.lead.count({ where: { chatbotId: kept.id } })).toBe(1);
    // The chatbot service has not heard of the deletion yet; the chat service stores nothing for it.
    expect((await rpcError(stack.client.submitLead(lead(chatbotGone.uniqueId, { email: 'a@b.co' })))).code).toBe(Code.NotFound);
    expect(await stack.parts.prisma.conversation.count({ where: { chatbotId: chatbotGone.id } })).toBe(0);
  });
});
