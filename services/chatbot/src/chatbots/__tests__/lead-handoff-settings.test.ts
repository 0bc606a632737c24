// A chatbot's lead form and handoff to a person (docs/adr/0034-humans-in-the-loop.md): validated
// with the owner's messages, stored by UpdateChatbot (only the fields sent change), answered in
// Chatbot and PublicChatbot, handoff turned on for a pro owner only and read on the public page only
// while the owner is pro, every change announced with a new public revision.
import { create } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppearanceChangeSchema, HandoffChangeSchema, LeadFormChangeSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from '../../../test/integration/harness.ts';
import type { Chatbot, PrismaClient } from '../../generated/prisma/client.ts';
import { HIDE_BRANDING_PRO_ONLY } from '../embed-settings.ts';
import { getPublicChatbot } from '../get-public-chatbot.ts';
import {
  AFTER_MESSAGES_INVALID,
  CONSENT_NOT_TEXT,
  CONSENT_TOO_LONG,
  HANDOFF_PRO_ONLY,
  HANDOFF_TIMEOUT_INVALID,
  LEAD_FIELD_INVALID,
  LEAD_TRIGGER_INVALID,
  parseAfterMessages,
  parseConsentText,
  parseHandoffTimeout,
  parseLeadFieldMode,
  parseLeadHandoffChange,
  parseLeadTrigger,
} from '../lead-handoff-settings.ts';

const message = (fn: () => unknown) => {
  try {
    fn();
    return 'valid';
  } catch (err) {
    return (err as Error & { rawMessage?: string }).rawMessage ?? (err as Error).message;
  }
};

describe('lead form settings', () => {
  it('takes off, optional or required for each field', () => {
    expect(parseLeadFieldMode('off')).toBe('off');
    expect(parseLeadFieldMode(' Optional ')).toBe('optional');
    expect(parseLeadFieldMode('required')).toBe('required');
    for (const bad of ['', 'on', 'yes', 'mandatory']) expect(message(() => parseLeadFieldMode(bad))).toBe(LEAD_FIELD_INVALID);
  });

  it('shows before the first message, after some messages or when unanswered', () => {
    expect(parseLeadTrigger('before_first_message')).toBe('before_first_message');
    expect(parseLeadTrigger('AFTER_MESSAGES')).toBe('after_messages');
    expect(parseLeadTrigger('when_unanswered')).toBe('when_unanswered');
    for (const bad of ['', 'always', 'after']) expect(message(() => parseLeadTrigger(bad))).toBe(LEAD_TRIGGER_INVALID);
  });

  it('takes 1 to 50 messages', () => {
    expect(parseAfterMessages(1)).toBe(1);
    expect(parseAfterMessages(50)).toBe(50);
    for (const bad of [0, -2, 51, 2.5, Number.NaN]) expect(message(() => parseAfterMessages(bad))).toBe(AFTER_MESSAGES_INVALID);
  });

  it('takes a consent line of at most 500 characters, one line of text, trimmed', () => {
    expect(parseConsentText('  I agree to be contacted.  ')).toBe('I agree to be contacted.');
    expect(parseConsentText('')).toBe('');
    expect(parseConsentText('é'.repeat(500))).toHaveLength(500);
    expect(message(() => parseConsentText('x'.repeat(501)))).toBe(CONSENT_TOO_LONG);
    for (const bad of ['one\ntwo', 'tab\there', 'nul\u0000', 'del\u007f'])
      expect(message(() => parseConsentText(bad))).toBe(CONSENT_NOT_TEXT);
  });
});

describe('handoff settings', () => {
  it('waits 30 to 3600 seconds', () => {
    expect(parseHandoffTimeout(30)).toBe(30);
    expect(parseHandoffTimeout(3600)).toBe(3600);
    for (const bad of [0, 29, 3601, 60.5]) expect(message(() => parseHandoffTimeout(bad))).toBe(HANDOFF_TIMEOUT_INVALID);
  });

  it('changes only what is sent', () => {
    expect(Object.values(parseLeadHandoffChange({})).every((v) => v === undefined)).toBe(true);
    expect(parseLeadHandoffChange({ leadForm: { email: 'Required', afterMessages: 3 }, handoff: { enabled: false } })).toEqual({
      leadName: undefined,
      leadEmail: 'required',
      leadPhone: undefined,
      leadTrigger: undefined,
      leadAfterMessages: 3,
      leadConsentText: undefined,
      handoffEnabled: false,
      handoffTimeoutSeconds: undefined,
    });
  });
});

describe('getPublicChatbot: handoff', () => {
  const row = (handoffEnabled: boolean) =>
    ({ id: 'c1', ownerId: 'o1', uniqueId: 'u1', isActive: true, hideBranding: false, handoffEnabled }) as Chatbot;
  const dbWith = (chatbot: Chatbot) => ({ chatbot: { findUnique: async () => chatbot } }) as unknown as PrismaClient;

  it('asks billing only when handoff is on; off while the owner is not pro or billing cannot answer; as stored for a message', async () => {
    const ownerPlan = vi.fn(async () => 'pro' as const);
    expect((await getPublicChatbot({ db: dbWith(row(false)), ownerPlan }, 'u1')).handoffEnabled).toBe(false);
    expect(ownerPlan).not.toHaveBeenCalled();
    expect((await getPublicChatbot({ db: dbWith(row(true)), ownerPlan }, 'u1')).handoffEnabled).toBe(true);
    expect(ownerPlan).toHaveBeenCalledWith('o1');
    expect((await getPublicChatbot({ db: dbWith(row(true)), ownerPlan: async () => 'free' }, 'u1')).handoffEnabled).toBe(false);
    expect(
      (await getPublicChatbot({ db: dbWith(row(true)), ownerPlan: async () => Promise.reject(new Error('down')) }, 'u1')).handoffEnabled,
    ).toBe(false);
    const free = vi.fn(async () => 'free' as const);
    expect((await getPublicChatbot({ db: dbWith(row(true)), ownerPlan: free }, 'u1', { branding: false })).handoffEnabled).toBe(true);
    expect(free).not.toHaveBeenCalled();
  });
});

describe('UpdateChatbot lead form and handoff', () => {
  let svc: TestChatbotService;
  beforeAll(async () => {
    svc = await startChatbotService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const revision = (chatbotId: string) => svc.redis.get(redisKeys(svc.config.QUEUE_PREFIX).chatbotRevision(chatbotId));
  const publicChatbot = async (uniqueId: string) => (await svc.client.getPublicChatbot({ uniqueId })).chatbot!;
  const promptChatbot = async (uniqueId: string) =>
    (await svc.client.getPromptKnowledge({ uniqueId, query: 'hi', budgetChars: 1000, k: 0 })).chatbot!;
  const setPlan = (ownerId: string, plan: 'free' | 'pro') => svc.billing.prisma.account.update({ where: { ownerId }, data: { plan } });

  it('gives a new chatbot no form and handoff off, everywhere', async () => {
    const bot = await svc.createChatbot(newOwner('lead'));
    const defaults = {
      leadForm: { name: 'off', email: 'off', phone: 'off', trigger: 'before_first_message', afterMessages: 2, consentText: '' },
      handoff: { enabled: false, timeoutSeconds: 300 },
    };
    expect(bot).toMatchObject(defaults);
    expect(await publicChatbot(bot.uniqueId)).toMatchObject(defaults);
    expect(await promptChatbot(bot.uniqueId)).toMatchObject(defaults);
  });

  it('stores the fields sent (and only those), answers them everywhere and announces each change', async () => {
    const ownerId = newOwner('lead');
    const bot = await svc.createChatbot(ownerId);
    const before = await revision(bot.id);
    const { chatbot } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      leadForm: create(LeadFormChangeSchema, { email: 'required', name: 'optional', trigger: 'after_messages', afterMessages: 3 }),
      handoff: create(HandoffChangeSchema, { timeoutSeconds: 120 }),
    });
    const leadForm = { name: 'optional', email: 'required', phone: 'off', trigger: 'after_messages', afterMessages: 3, consentText: '' };
    expect(chatbot).toMatchObject({ leadForm, handoff: { enabled: false, timeoutSeconds: 120 } });
    const afterForm = await revision(bot.id);
    expect(afterForm).toMatch(/^[0-9a-f-]{36}$/);
    expect(afterForm).not.toBe(before);

    const { chatbot: consented } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      leadForm: create(LeadFormChangeSchema, { consentText: ' I agree to be contacted. ' }),
    });
    expect(consented!.leadForm).toEqual(expect.objectContaining({ ...leadForm, consentText: 'I agree to be contacted.' }));
    expect(await revision(bot.id)).not.toBe(afterForm);
    for (const read of [
      (await svc.client.getChatbot({ ownerId, chatbotId: bot.id })).chatbot!,
      await publicChatbot(bot.uniqueId),
      await promptChatbot(bot.uniqueId),
    ])
      expect(read.leadForm).toMatchObject({ ...leadForm, consentText: 'I agree to be contacted.' });
  });

  it.each([
    [{ leadForm: create(LeadFormChangeSchema, { email: 'yes' }) }, LEAD_FIELD_INVALID],
    [{ leadForm: create(LeadFormChangeSchema, { trigger: 'sometimes' }) }, LEAD_TRIGGER_INVALID],
    [{ leadForm: create(LeadFormChangeSchema, { afterMessages: 0 }) }, AFTER_MESSAGES_INVALID],
    [{ leadForm: create(LeadFormChangeSchema, { afterMessages: 51 }) }, AFTER_MESSAGES_INVALID],
    [{ leadForm: create(LeadFormChangeSchema, { consentText: 'x'.repeat(501) }) }, CONSENT_TOO_LONG],
    [{ leadForm: create(LeadFormChangeSchema, { consentText: 'a\nb' }) }, CONSENT_NOT_TEXT],
    [{ handoff: create(HandoffChangeSchema, { timeoutSeconds: 29 }) }, HANDOFF_TIMEOUT_INVALID],
    [{ handoff: create(HandoffChangeSchema, { timeoutSeconds: 3601 }) }, HANDOFF_TIMEOUT_INVALID],
  ])('refuses %o with INVALID_ARGUMENT, changing nothing and announcing nothing', async (change, expected) => {
    const ownerId = newOwner('lead');
    const bot = await svc.createChatbot(ownerId);
    const before = await revision(bot.id);
    await expectRpcError(
      svc.client.updateChatbot({ ownerId, chatbotId: bot.id, name: 'Changed', ...change }),
      Code.InvalidArgument,
      expected,
    );
    const { chatbot } = await svc.client.getChatbot({ ownerId, chatbotId: bot.id });
    expect({ name: chatbot!.name, leadForm: chatbot!.leadForm, handoff: chatbot!.handoff }).toEqual({
      name: bot.name,
      leadForm: bot.leadForm,
      handoff: bot.handoff,
    });
    expect(await revision(bot.id)).toBe(before);
  });

  it("turns handoff on for a pro owner only; the public lookup reads it off once the owner isn't pro", async () => {
    const ownerId = newOwner('handoff');
    const bot = await svc.createChatbot(ownerId);
    const enable = create(HandoffChangeSchema, { enabled: true });

    const before = await revision(bot.id);
    await expectRpcError(
      svc.client.updateChatbot({ ownerId, chatbotId: bot.id, handoff: enable }),
      Code.PermissionDenied,
      HANDOFF_PRO_ONLY,
    );
    // The badge keeps its own message when both are asked.
    await expectRpcError(
      svc.client.updateChatbot({
        ownerId,
        chatbotId: bot.id,
        handoff: enable,
        appearance: create(AppearanceChangeSchema, { hideBranding: true }),
      }),
      Code.PermissionDenied,
      HIDE_BRANDING_PRO_ONLY,
    );
    expect((await svc.client.getChatbot({ ownerId, chatbotId: bot.id })).chatbot!.handoff!.enabled).toBe(false);
    expect(await revision(bot.id)).toBe(before);
    // Turning it off, or changing the wait, is every owner's choice.
    const off = create(HandoffChangeSchema, { enabled: false, timeoutSeconds: 60 });
    expect((await svc.client.updateChatbot({ ownerId, chatbotId: bot.id, handoff: off })).chatbot!.handoff).toMatchObject({
      enabled: false,
      timeoutSeconds: 60,
    });

    await svc.makePro(ownerId);
    const { chatbot } = await svc.client.updateChatbot({ ownerId, chatbotId: bot.id, handoff: enable });
    expect(chatbot!.handoff).toMatchObject({ enabled: true, timeoutSeconds: 60 });
    expect((await publicChatbot(bot.uniqueId)).handoff!.enabled).toBe(true);
    expect((await promptChatbot(bot.uniqueId)).handoff!.enabled).toBe(true);

    await setPlan(ownerId, 'free');
    expect((await publicChatbot(bot.uniqueId)).handoff!.enabled).toBe(false);
    // A message's knowledge carries it as stored (no billing call per message); the owner's choice is kept.
    expect((await promptChatbot(bot.uniqueId)).handoff!.enabled).toBe(true);
    expect((await svc.client.getChatbot({ ownerId, chatbotId: bot.id })).chatbot!.handoff!.enabled).toBe(true);
    await setPlan(ownerId, 'pro');
    expect((await publicChatbot(bot.uniqueId)).handoff!.enabled).toBe(true);
  });
});
