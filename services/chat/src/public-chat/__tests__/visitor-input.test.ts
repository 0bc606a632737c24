// What a message carries beyond its text: the visitor's id and name, where it came
// from, whether it opens a conversation; and the public lookup's new fields and its site rule.
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import {
  AppearanceSchema,
  EmbeddingSchema,
  PublicChatbotSchema,
  VisitorLimitsSchema,
  type ChatbotService,
} from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createLogger } from '@parley/common/logger.ts';
import { loadChatbotProfile } from '../chatbot-profile.ts';
import { parseMessageInput, visitorIdTooLong, visitorNameTooLong } from '../../core/message-input.ts';
import { sessionIds } from '../../core/session-id.ts';
import { SITE_NOT_ALLOWED } from '../../core/visitor-site.ts';

const ids = sessionIds('test-session-secret-1');
const raw = { uniqueId: 'bot', sessionId: '', message: 'hi', model: '', clientIp: '', userAgent: '' };
const parse = (extra: Partial<Parameters<typeof parseMessageInput>[0]>) =>
  parseMessageInput({ ...raw, ...extra }, { maxMessageChars: 100 }, ids);
const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err as ConnectError;
  }
  throw new Error('nothing thrown');
};

describe("the visitor's id and name", () => {
  it('are trimmed, stripped of control characters, and empty is not told', () => {
    const input = parse({ visitorId: '  cust-42\n', visitorName: 'Ada\u0007 Love\u0085lace ' });
    expect(input).toMatchObject({ visitorId: 'cust-42', visitorName: 'Ada Lovelace' });
    expect(parse({ visitorId: ' \u0000 ', visitorName: '' })).toMatchObject({ visitorId: null, visitorName: null });
    expect(parse({})).toMatchObject({ visitorId: null, visitorName: null });
  });

  it('are refused past 200 characters (counted as a reader counts them), not cut', () => {
    expect(parse({ visitorName: '😀'.repeat(200) }).visitorName).toBe('😀'.repeat(200));
    expect(thrown(() => parse({ visitorId: 'x'.repeat(201) }))).toMatchObject({ code: Code.InvalidArgument, rawMessage: visitorIdTooLong });
    expect(thrown(() => parse({ visitorName: 'é'.repeat(201) }))).toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: visitorNameTooLong,
    });
  });
});

describe('a message', () => {
  it('opens a new conversation unless its session id is one this service issued', () => {
    const first = parse({});
    expect(first.newConversation).toBe(true);
    expect(parse({ sessionId: first.sessionId })).toMatchObject({ newConversation: false, sessionId: first.sessionId });
    expect(parse({ sessionId: 'made-up-id-123' }).newConversation).toBe(true);
  });

  it('says where it came from, the host lower-cased', () => {
    expect(parse({ siteHost: ' Shop.Example.COM ', embedded: true }).site).toEqual({ siteHost: 'shop.example.com', embedded: true });
    expect(parse({}).site).toEqual({ siteHost: '', embedded: false });
  });
});

describe('the public lookup', () => {
  const chatbot = create(PublicChatbotSchema, {
    id: 'b1',
    name: 'Shop',
    appearance: create(AppearanceSchema, { primaryColor: '#112233', position: 'left', launcherLabel: 'Ask us', hideBranding: true }),
    embedding: create(EmbeddingSchema, { allowedDomains: ['shop.example.com'], standalonePage: false }),
    limits: create(VisitorLimitsSchema, { visitorMessagesPerDay: 100, dailySpendLimit: '5.00', proofOfWork: true }),
  });
  const deps = {
    chatbots: { getPublicChatbot: async () => ({ chatbot }) } as unknown as Client<typeof ChatbotService>,
    logger: createLogger('profile-test', 'silent'),
  };

  it('tells how the chatbot looks and where it runs, and nothing of its spend limits', async () => {
    const profile = await loadChatbotProfile(deps, { uniqueId: 'u1', siteHost: 'shop.example.com' });
    expect(profile).toMatchObject({
      appearance: { primaryColor: '#112233', position: 'left', launcherLabel: 'Ask us', hideBranding: true },
      allowedDomains: ['shop.example.com'],
      proofOfWork: true,
      standalonePage: false,
    });
    expect(JSON.stringify(profile)).not.toContain('5.00');
  });

  it('refuses a site the chatbot may not run on, and the standalone page once it is off', async () => {
    for (const call of [{ uniqueId: 'u1', siteHost: 'evil.example' }, { uniqueId: 'u1' }]) {
      const err = await loadChatbotProfile(deps, call).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: Code.PermissionDenied, rawMessage: SITE_NOT_ALLOWED });
    }
    await expect(loadChatbotProfile(deps, { uniqueId: 'u1', embedded: true })).resolves.toMatchObject({ name: 'Shop' });
  });

  it('reads the defaults for a chatbot service that sends no appearance or embedding yet', async () => {
    const plain = {
      ...deps,
      chatbots: { getPublicChatbot: async () => ({ chatbot: create(PublicChatbotSchema, { name: 'Old' }) }) } as never,
    };
    expect(await loadChatbotProfile(plain, { uniqueId: 'u1' })).toMatchObject({
      appearance: { primaryColor: '', position: 'right', launcherLabel: '', hideBranding: false },
      allowedDomains: [],
      proofOfWork: false,
      standalonePage: true,
    });
  });
});
