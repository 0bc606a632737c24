// A chatbot's appearance, where it may run and its visitor limits (ADR 19): validated with the
// owner's messages, stored by UpdateChatbot (only the fields sent change), answered in Chatbot and
// PublicChatbot (GetPublicChatbot and GetPromptKnowledge), the badge hidden only for a pro owner, and
// every change announced with a new public revision.
import { create } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AllowedDomainsSchema,
  AppearanceChangeSchema,
  EmbeddingChangeSchema,
  VisitorLimitsChangeSchema,
} from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { unavailable } from '@parley/common/rpc-errors.ts';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from '../../../test/integration/harness.ts';
import type { Chatbot, PrismaClient } from '../../generated/prisma/client.ts';
import {
  ALLOWED_DOMAIN_INVALID,
  DAILY_SPEND_INVALID,
  HIDE_BRANDING_PRO_ONLY,
  LAUNCHER_LABEL_NOT_ONE_LINE,
  LAUNCHER_LABEL_TOO_LONG,
  parseAllowedDomains,
  parseDailySpendLimit,
  parseEmbedSettingsChange,
  parseHost,
  parseLauncherLabel,
  parsePosition,
  parsePrimaryColor,
  parseVisitorMessagesPerDay,
  POSITION_INVALID,
  PRIMARY_COLOR_INVALID,
  TOO_MANY_ALLOWED_DOMAINS,
  VISITOR_MESSAGES_INVALID,
} from '../embed-settings.ts';
import { getPublicChatbot } from '../get-public-chatbot.ts';

const message = (fn: () => unknown) => {
  try {
    fn();
    return 'valid';
  } catch (err) {
    return (err as Error & { rawMessage?: string }).rawMessage ?? (err as Error).message;
  }
};

describe('appearance', () => {
  it('takes a #rrggbb colour in lower case, empty for the product colour', () => {
    expect(parsePrimaryColor(' #1A73E8 ')).toBe('#1a73e8');
    expect(parsePrimaryColor('')).toBe('');
    expect(parsePrimaryColor('  ')).toBe('');
    for (const bad of ['1a73e8', '#1a73e', '#1a73e8f', '#fff', 'red', '#ggg000', 'rgb(0,0,0)'])
      expect(message(() => parsePrimaryColor(bad))).toBe(PRIMARY_COLOR_INVALID);
  });

  it('takes left or right', () => {
    expect(parsePosition('left')).toBe('left');
    expect(parsePosition(' Right ')).toBe('right');
    for (const bad of ['', 'center', 'top-left']) expect(message(() => parsePosition(bad))).toBe(POSITION_INVALID);
  });

  it('takes a label of at most 40 characters on one line, empty for an icon only', () => {
    expect(parseLauncherLabel('  Chat with us  ')).toBe('Chat with us');
    expect(parseLauncherLabel('')).toBe('');
    expect(message(() => parseLauncherLabel('😀'.repeat(40)))).toBe('valid');
    expect(message(() => parseLauncherLabel('a'.repeat(41)))).toBe(LAUNCHER_LABEL_TOO_LONG);
    expect(message(() => parseLauncherLabel('Chat\nnow'))).toBe(LAUNCHER_LABEL_NOT_ONE_LINE);
    expect(message(() => parseLauncherLabel('Chat\u0000'))).toBe(LAUNCHER_LABEL_NOT_ONE_LINE);
  });
});

describe('allowed domains', () => {
  it('takes bare host names, localhost and IPv4 addresses, lower-cased, non-ASCII names as punycode', () => {
    expect(parseHost(' Shop.Example.COM ')).toBe('shop.example.com');
    expect(parseHost('localhost')).toBe('localhost');
    expect(parseHost('127.0.0.1')).toBe('127.0.0.1');
    expect(parseHost('my-shop.co.uk')).toBe('my-shop.co.uk');
    expect(parseHost('xn--bcher-kva.de')).toBe('xn--bcher-kva.de');
    expect(parseHost('Bücher.de')).toBe('xn--bcher-kva.de');
  });

  it.each([
    'https://shop.example.com',
    'shop.example.com/',
    'shop.example.com:8080',
    'shop.example.com/path',
    '*.example.com',
    'example',
    'shop..example.com',
    '.example.com',
    'example.com.',
    '-shop.example.com',
    'shop-.example.com',
    'shop_1.example.com',
    'shop example.com',
    '1.2.3.999',
    '256.1.1.1',
    '01.2.3.4',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(127)}com`,
    'user@example.com',
  ])('refuses %j', (bad) => {
    expect(parseHost(bad)).toBeUndefined();
    expect(message(() => parseAllowedDomains([bad]))).toBe(ALLOWED_DOMAIN_INVALID);
  });

  it('drops blank rows and duplicates before counting at most 20', () => {
    expect(parseAllowedDomains([' Shop.example.com', '', 'shop.example.com', '  ', 'localhost'])).toEqual([
      'shop.example.com',
      'localhost',
    ]);
    expect(parseAllowedDomains([])).toEqual([]);
    const twenty = Array.from({ length: 20 }, (_, i) => `s${i}.example.com`);
    expect(parseAllowedDomains([...twenty, 'S0.example.com'])).toHaveLength(20);
    expect(message(() => parseAllowedDomains([...twenty, 'one-more.example.com']))).toBe(TOO_MANY_ALLOWED_DOMAINS);
  });
});

describe('visitor limits', () => {
  it('takes 1 to 10000 messages per visitor per day', () => {
    expect(parseVisitorMessagesPerDay(1)).toBe(1);
    expect(parseVisitorMessagesPerDay(10_000)).toBe(10_000);
    for (const bad of [0, -1, 10_001, 1.5, Number.NaN])
      expect(message(() => parseVisitorMessagesPerDay(bad))).toBe(VISITOR_MESSAGES_INVALID);
  });

  it('takes 0.01 to 10000.00 dollars with at most two decimals, as an exact decimal', () => {
    expect(parseDailySpendLimit('5')).toBe('5.00');
    expect(parseDailySpendLimit(' 5.5 ')).toBe('5.50');
    expect(parseDailySpendLimit('.5')).toBe('0.50');
    expect(parseDailySpendLimit('0.01')).toBe('0.01');
    expect(parseDailySpendLimit('10000.00')).toBe('10000.00');
    expect(parseDailySpendLimit('0010000')).toBe('10000.00');
    expect(parseDailySpendLimit('19.99')).toBe('19.99');
    for (const bad of [
      '0',
      '0.00',
      '0.001',
      '10000.01',
      '5.001',
      '-1',
      '5.',
      '.',
      '',
      '1e3',
      '5 dollars',
      '$5',
      '1,000',
      'NaN',
      '9'.repeat(30),
    ])
      expect(message(() => parseDailySpendLimit(bad))).toBe(DAILY_SPEND_INVALID);
  });
});

describe('parseEmbedSettingsChange', () => {
  it('changes only what is sent; a cleared limit ignores its value', () => {
    expect(Object.values(parseEmbedSettingsChange({})).every((v) => v === undefined)).toBe(true);
    expect(
      parseEmbedSettingsChange({
        appearance: { primaryColor: '#ABCDEF', hideBranding: false },
        embedding: { allowedDomains: { domains: [] }, standalonePage: false },
        limits: { visitorMessagesPerDay: 0, clearVisitorMessagesPerDay: true, dailySpendLimit: '2' },
      }),
    ).toEqual({
      primaryColor: '#abcdef',
      position: undefined,
      launcherLabel: undefined,
      hideBranding: false,
      allowedDomains: [],
      standalonePage: false,
      visitorMessagesPerDay: null,
      dailySpendLimit: '2.00',
      proofOfWork: undefined,
    });
    expect(parseEmbedSettingsChange({ limits: { dailySpendLimit: 'junk', clearDailySpendLimit: true } }).dailySpendLimit).toBeNull();
    expect(message(() => parseEmbedSettingsChange({ limits: { visitorMessagesPerDay: 0 } }))).toBe(VISITOR_MESSAGES_INVALID);
  });
});

describe('getPublicChatbot: the badge', () => {
  const row = (hideBranding: boolean) => ({ id: 'c1', ownerId: 'o1', uniqueId: 'u1', isActive: true, hideBranding }) as Chatbot;
  const dbWith = (chatbot: Chatbot) => ({ chatbot: { findUnique: async () => chatbot } }) as unknown as PrismaClient;

  it('asks billing only for a chatbot that hides it, and shows it when billing cannot answer', async () => {
    const ownerPlan = vi.fn(async () => 'pro' as const);
    expect((await getPublicChatbot({ db: dbWith(row(false)), ownerPlan }, 'u1')).hideBranding).toBe(false);
    expect(ownerPlan).not.toHaveBeenCalled();
    expect((await getPublicChatbot({ db: dbWith(row(true)), ownerPlan }, 'u1')).hideBranding).toBe(true);
    expect(ownerPlan).toHaveBeenCalledWith('o1');
    const down = async () => Promise.reject(unavailable('Could not check your plan. Please try again.'));
    expect((await getPublicChatbot({ db: dbWith(row(true)), ownerPlan: down }, 'u1')).hideBranding).toBe(false);
    expect((await getPublicChatbot({ db: dbWith(row(true)), ownerPlan: async () => 'free' }, 'u1')).hideBranding).toBe(false);
  });
});

describe('UpdateChatbot appearance, embedding and limits', () => {
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

  it('gives a new chatbot the defaults, in Chatbot and PublicChatbot', async () => {
    const bot = await svc.createChatbot(newOwner('embed'));
    const defaults = {
      appearance: { primaryColor: '', position: 'right', launcherLabel: '', hideBranding: false },
      embedding: { allowedDomains: [], standalonePage: true },
      limits: { visitorMessagesPerDay: 100, dailySpendLimit: '5.00', proofOfWork: false },
    };
    expect(bot).toMatchObject(defaults);
    expect(await publicChatbot(bot.uniqueId)).toMatchObject(defaults);
    expect(await promptChatbot(bot.uniqueId)).toMatchObject(defaults);
  });

  it('stores the fields sent (and only those), answers them everywhere and announces each change', async () => {
    const ownerId = newOwner('embed');
    const bot = await svc.createChatbot(ownerId);
    const seen = new Set([await revision(bot.id)]);
    const expectNewRevision = async () => {
      const now = await revision(bot.id);
      expect(now).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    };

    const { chatbot: styled } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      appearance: create(AppearanceChangeSchema, { primaryColor: '#FF6600', position: 'left', launcherLabel: ' Ask us ' }),
    });
    const appearance = { primaryColor: '#ff6600', position: 'left', launcherLabel: 'Ask us', hideBranding: false };
    expect(styled!.appearance).toMatchObject(appearance);
    await expectNewRevision();

    const { chatbot: placed } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      embedding: create(EmbeddingChangeSchema, {
        allowedDomains: create(AllowedDomainsSchema, { domains: ['Shop.Example.com', 'shop.example.com', '', 'localhost'] }),
        standalonePage: false,
      }),
    });
    const embedding = { allowedDomains: ['shop.example.com', 'localhost'], standalonePage: false };
    expect(placed!.embedding).toMatchObject(embedding);
    expect(placed!.appearance).toMatchObject(appearance);
    await expectNewRevision();

    const { chatbot: limited } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      limits: create(VisitorLimitsChangeSchema, { visitorMessagesPerDay: 20, dailySpendLimit: '12.5', proofOfWork: true }),
    });
    const limits = { visitorMessagesPerDay: 20, dailySpendLimit: '12.50', proofOfWork: true };
    expect(limited!.limits).toMatchObject(limits);
    await expectNewRevision();

    for (const read of [
      (await svc.client.getChatbot({ ownerId, chatbotId: bot.id })).chatbot!,
      await publicChatbot(bot.uniqueId),
      await promptChatbot(bot.uniqueId),
    ]) {
      expect(read.appearance).toMatchObject(appearance);
      expect(read.embedding).toMatchObject(embedding);
      expect(read.limits).toMatchObject(limits);
    }

    // Removing both limits; the rest stays. A renaming keeps everything.
    const { chatbot: unlimited } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      name: 'Renamed',
      limits: create(VisitorLimitsChangeSchema, { clearVisitorMessagesPerDay: true, clearDailySpendLimit: true }),
    });
    expect(unlimited!.limits!.visitorMessagesPerDay).toBeUndefined();
    expect(unlimited!.limits!.dailySpendLimit).toBeUndefined();
    expect(unlimited!.limits!.proofOfWork).toBe(true);
    expect(unlimited!.embedding).toMatchObject(embedding);
    await expectNewRevision();
    const publicLimits = (await publicChatbot(bot.uniqueId)).limits!;
    expect([publicLimits.visitorMessagesPerDay, publicLimits.dailySpendLimit, publicLimits.proofOfWork]).toEqual([
      undefined,
      undefined,
      true,
    ]);

    // Back to anywhere and the product's colour.
    const { chatbot: reset } = await svc.client.updateChatbot({
      ownerId,
      chatbotId: bot.id,
      appearance: create(AppearanceChangeSchema, { primaryColor: '' }),
      embedding: create(EmbeddingChangeSchema, { allowedDomains: create(AllowedDomainsSchema, { domains: [] }) }),
    });
    expect(reset!.appearance).toMatchObject({ ...appearance, primaryColor: '' });
    expect(reset!.embedding).toMatchObject({ allowedDomains: [], standalonePage: false });
    await expectNewRevision();
  });

  it.each([
    [{ appearance: create(AppearanceChangeSchema, { primaryColor: 'blue' }) }, PRIMARY_COLOR_INVALID],
    [{ appearance: create(AppearanceChangeSchema, { position: 'middle' }) }, POSITION_INVALID],
    [{ appearance: create(AppearanceChangeSchema, { launcherLabel: 'x'.repeat(41) }) }, LAUNCHER_LABEL_TOO_LONG],
    [
      {
        embedding: create(EmbeddingChangeSchema, {
          allowedDomains: create(AllowedDomainsSchema, { domains: ['https://shop.example.com/'] }),
        }),
      },
      ALLOWED_DOMAIN_INVALID,
    ],
    [
      {
        embedding: create(EmbeddingChangeSchema, {
          allowedDomains: create(AllowedDomainsSchema, { domains: Array.from({ length: 21 }, (_, i) => `s${i}.example.com`) }),
        }),
      },
      TOO_MANY_ALLOWED_DOMAINS,
    ],
    [{ limits: create(VisitorLimitsChangeSchema, { visitorMessagesPerDay: 0 }) }, VISITOR_MESSAGES_INVALID],
    [{ limits: create(VisitorLimitsChangeSchema, { visitorMessagesPerDay: 10_001 }) }, VISITOR_MESSAGES_INVALID],
    [{ limits: create(VisitorLimitsChangeSchema, { dailySpendLimit: '0' }) }, DAILY_SPEND_INVALID],
    [{ limits: create(VisitorLimitsChangeSchema, { dailySpendLimit: '1.234' }) }, DAILY_SPEND_INVALID],
  ])('refuses %o with INVALID_ARGUMENT, changing nothing and announcing nothing', async (change, expected) => {
    const ownerId = newOwner('embed');
    const bot = await svc.createChatbot(ownerId);
    const before = await revision(bot.id);
    await expectRpcError(
      svc.client.updateChatbot({ ownerId, chatbotId: bot.id, name: 'Changed', ...change }),
      Code.InvalidArgument,
      expected,
    );
    const { chatbot } = await svc.client.getChatbot({ ownerId, chatbotId: bot.id });
    expect(chatbot!.name).toBe(bot.name);
    expect({ appearance: chatbot!.appearance, embedding: chatbot!.embedding, limits: chatbot!.limits }).toEqual({
      appearance: bot.appearance,
      embedding: bot.embedding,
      limits: bot.limits,
    });
    expect(await revision(bot.id)).toBe(before);
  });

  it('answers an empty or malformed chatbot id, or an empty owner, like any other bad reference', async () => {
    const appearance = create(AppearanceChangeSchema, { hideBranding: true });
    await expectRpcError(svc.client.updateChatbot({ ownerId: newOwner(), chatbotId: '', appearance }), Code.NotFound, 'Chatbot not found');
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: newOwner(), chatbotId: 'not-a-uuid', appearance }),
      Code.NotFound,
      'Chatbot not found',
    );
    await expectRpcError(
      svc.client.updateChatbot({ ownerId: '', chatbotId: '', appearance }),
      Code.InvalidArgument,
      'owner_id is required.',
    );
    await expectRpcError(svc.client.getPublicChatbot({ uniqueId: '' }), Code.NotFound, 'Chatbot not found or inactive');
  });

  it("hides the badge for a pro owner only, and the public lookup shows it again once the owner isn't pro", async () => {
    const ownerId = newOwner('brand');
    const bot = await svc.createChatbot(ownerId);
    const hide = create(AppearanceChangeSchema, { hideBranding: true });

    const before = await revision(bot.id);
    await expectRpcError(
      svc.client.updateChatbot({ ownerId, chatbotId: bot.id, appearance: hide }),
      Code.PermissionDenied,
      HIDE_BRANDING_PRO_ONLY,
    );
    expect((await svc.client.getChatbot({ ownerId, chatbotId: bot.id })).chatbot!.appearance!.hideBranding).toBe(false);
    expect(await revision(bot.id)).toBe(before);
    // Showing it is every owner's choice.
    const shown = create(AppearanceChangeSchema, { hideBranding: false, launcherLabel: 'Help' });
    expect((await svc.client.updateChatbot({ ownerId, chatbotId: bot.id, appearance: shown })).chatbot!.appearance).toMatchObject({
      hideBranding: false,
      launcherLabel: 'Help',
    });

    await svc.makePro(ownerId);
    const { chatbot } = await svc.client.updateChatbot({ ownerId, chatbotId: bot.id, appearance: hide });
    expect(chatbot!.appearance!.hideBranding).toBe(true);
    expect((await publicChatbot(bot.uniqueId)).appearance!.hideBranding).toBe(true);
    // A message's knowledge shows nothing: the badge is not read there (no billing call per message).
    expect((await promptChatbot(bot.uniqueId)).appearance!.hideBranding).toBe(false);

    await setPlan(ownerId, 'free');
    expect((await publicChatbot(bot.uniqueId)).appearance!.hideBranding).toBe(false);
    // The owner's choice is kept: it holds again when the owner is pro again.
    expect((await svc.client.getChatbot({ ownerId, chatbotId: bot.id })).chatbot!.appearance!.hideBranding).toBe(true);
    await setPlan(ownerId, 'pro');
    expect((await publicChatbot(bot.uniqueId)).appearance!.hideBranding).toBe(true);
  });
});
