// A workspace's own provider key (docs/adr/0043-own-provider-keys.md): checked with the provider
// before it is stored, never shown again, used for that workspace's chatbots on that provider at no
// credit, recorded as own-key usage; removal falls back to the operator's key and credit at once; the
// decrypted keys' cache is forgotten on every replica. Real chatbot and billing services,
// PostgreSQL, Redis, the official Anthropic SDK against its fake.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Code } from '@connectrpc/connect';
import { startFakeAnthropic, type FakeAnthropic } from '@parley/common/testing/fake-anthropic.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEV_PROVIDER_KEY_ENCRYPTION_KEY } from '../../src/config.ts';
import { KEY_REFUSED } from '../../src/provider-keys/provider-key-check.ts';
import { opensUnder } from '../../src/provider-keys/provider-keys.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { rpcError, startChatStack, visitor, type ChatStack, type ChatUnderTest } from './harness.ts';

const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];
const QUESTION = 'Is the museum open every day?';
const OPERATOR_KEY = 'operator-anthropic-key';
const OWN_KEY = 'sk-ant-workspace-own-key-abcd';

let stack: ChatStack;
let chat: ChatUnderTest;
let anthropic: FakeAnthropic;
beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  stack = await startChatStack({ ANTHROPIC_API_KEY: OPERATOR_KEY, ANTHROPIC_BASE_URL: anthropic.url });
  chat = stack;
});
afterAll(async () => {
  await stack?.stop();
  await anthropic?.close();
});
beforeEach(() => {
  stack.fake.reset();
  anthropic.reset();
});

async function claudeChatbot(credit: string) {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await stack.chatbots.updateChatbot({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    model: { modelId: 'claude-haiku-4-5', fallbackModelId: '' },
  });
  await stack.setCredit(bot.ownerId, credit);
  return bot;
}

/** A response as text, to look for the key in every field. */
const text = (message: unknown) => JSON.stringify(message, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
const account = (ownerId: string) => stack.billing.prisma.account.findUniqueOrThrow({ where: { ownerId } });
const recordsOf = (ownerId: string) => stack.billing.prisma.usageRecord.findMany({ where: { ownerId } });

describe("a workspace's own provider key", () => {
  it('is not stored when the provider refuses it', async () => {
    const bot = await claudeChatbot('1');
    anthropic.setBehaviour({ refusedKeys: ['sk-ant-revoked-key-0000'] });
    const err = await rpcError(chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'anthropic', key: 'sk-ant-revoked-key-0000' }));
    expect([err.code, err.rawMessage]).toEqual([Code.FailedPrecondition, KEY_REFUSED]);
    expect(err.message).not.toContain('revoked-key');
    expect(anthropic.modelListKeys).toEqual(['sk-ant-revoked-key-0000']);
    expect((await chat.client.listProviderKeys({ ownerId: bot.ownerId })).keys).toEqual([]);
    expect(await chat.parts.prisma.providerKey.count({ where: { ownerId: bot.ownerId } })).toBe(0);
  });

  it('refuses a provider the deployment does not offer, and a malformed key, without calling anyone', async () => {
    const bot = await claudeChatbot('1');
    const gemini = await rpcError(chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'gemini', key: 'AIza-some-key-1234' }));
    expect(gemini.code).toBe(Code.FailedPrecondition);
    const spaced = await rpcError(chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'anthropic', key: 'has a space' }));
    expect(spaced.code).toBe(Code.InvalidArgument);
    const long = await rpcError(chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'anthropic', key: 'k'.repeat(501) }));
    expect(long.code).toBe(Code.InvalidArgument);
    const unknown = await rpcError(chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'mistral', key: 'abcdefghij' }));
    expect(unknown.code).toBe(Code.InvalidArgument);
    expect(anthropic.modelListKeys).toEqual([]);
  });

  it("answers that workspace's chatbots with its key at no credit, recorded as own-key usage; never another workspace's", async () => {
    const bot = await claudeChatbot('0');
    const other = await claudeChatbot('1');
    const saved = await chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'anthropic', key: OWN_KEY });
    expect(saved.key).toMatchObject({ provider: 'anthropic', lastFour: 'abcd' });
    expect(text(saved)).not.toContain(OWN_KEY);
    const listed = await chat.client.listProviderKeys({ ownerId: bot.ownerId });
    expect(listed.keys.map((k) => [k.provider, k.lastFour])).toEqual([['anthropic', 'abcd']]);
    expect(text(listed)).not.toContain(OWN_KEY);
    const row = await chat.parts.prisma.providerKey.findUniqueOrThrow({
      where: { ownerId_provider: { ownerId: bot.ownerId, provider: 'anthropic' } },
    });
    expect(row.ciphertext).not.toContain(OWN_KEY);

    // A balance of zero: the own key's answer needs no credit.
    const res = await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    expect(res.message).toContain('[1]');
    await chat.client.sendMessage(visitor(other.uniqueId, QUESTION));
    expect(anthropic.apiKeys).toEqual([OWN_KEY, OPERATOR_KEY]);

    const usage = await stack.usageJobs();
    expect(usage.find((u) => u.chatbotId === bot.id)).toMatchObject({ model: 'claude-haiku-4-5', ownKey: true });
    expect(usage.find((u) => u.chatbotId === other.id)).toMatchObject({ model: 'claude-haiku-4-5', ownKey: false });
    await stack.applyUsage();
    const [own] = await recordsOf(bot.ownerId);
    expect(own).toMatchObject({ ownKey: true, model: 'claude-haiku-4-5' });
    expect(own!.totalCost.toFixed()).toBe('0');
    const { creditBalance, reservedCredit } = await account(bot.ownerId);
    expect([creditBalance.toFixed(), reservedCredit.toFixed()]).toEqual(['0', '0']);
    const [theirs] = await recordsOf(other.ownerId);
    expect(theirs!.ownKey).toBe(false);
    expect(theirs!.totalCost.gt(0)).toBe(true);
  });

  it("falls back to the operator's key and credit at once when removed", async () => {
    const bot = await claudeChatbot('0');
    await chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'anthropic', key: OWN_KEY });
    await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    expect((await chat.client.removeProviderKey({ ownerId: bot.ownerId, provider: 'anthropic' })).removed).toBe(true);
    expect((await chat.client.listProviderKeys({ ownerId: bot.ownerId })).keys).toEqual([]);
    // No credit: on the operator's key the chatbot cannot answer.
    expect((await rpcError(chat.client.sendMessage(visitor(bot.uniqueId, QUESTION)))).code).toBe(Code.Unavailable);
    await stack.setCredit(bot.ownerId, '1');
    await chat.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    expect(anthropic.apiKeys).toEqual([OWN_KEY, OPERATOR_KEY]);
    await stack.applyUsage();
    const records = await recordsOf(bot.ownerId);
    expect(records.map((r) => r.ownKey).sort()).toEqual([false, true]);
    expect(records.find((r) => !r.ownKey)!.totalCost.gt(0)).toBe(true);
    expect((await chat.client.removeProviderKey({ ownerId: bot.ownerId, provider: 'anthropic' })).removed).toBe(false);
  });

  it('is forgotten by every chat replica when set or removed on one', async () => {
    const second = await stack.startChat({
      ANTHROPIC_API_KEY: OPERATOR_KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      DATABASE_URL: chat.config.DATABASE_URL,
      CHAT_DB_SCHEMA: chat.config.CHAT_DB_SCHEMA,
    });
    const bot = await claudeChatbot('1');
    // The second replica learns that the workspace has no key (cached), then the first stores one.
    await second.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    await chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'anthropic', key: OWN_KEY });
    const keyOfNextAnswer = async () => {
      await second.client.sendMessage(visitor(bot.uniqueId, QUESTION));
      return anthropic.apiKeys.at(-1);
    };
    await expect.poll(keyOfNextAnswer, { interval: 20, timeout: 5000 }).toBe(OWN_KEY);
    await chat.client.removeProviderKey({ ownerId: bot.ownerId, provider: 'anthropic' });
    await expect.poll(keyOfNextAnswer, { interval: 20, timeout: 5000 }).toBe(OPERATOR_KEY);
  });

  it('is still read under the previous operator key during a rotation, and the command seals it again under the new one', async () => {
    const NEW_KEY = Buffer.alloc(32, 42).toString('base64');
    const shared = {
      ANTHROPIC_API_KEY: OPERATOR_KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      DATABASE_URL: chat.config.DATABASE_URL,
      CHAT_DB_SCHEMA: chat.config.CHAT_DB_SCHEMA,
    };
    const bot = await claudeChatbot('0');
    await chat.client.setProviderKey({ ownerId: bot.ownerId, provider: 'anthropic', key: OWN_KEY });
    const rotating = await stack.startChat({
      ...shared,
      PROVIDER_KEY_ENCRYPTION_KEY: NEW_KEY,
      PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY: DEV_PROVIDER_KEY_ENCRYPTION_KEY,
    });
    await rotating.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    expect(anthropic.apiKeys.at(-1)).toBe(OWN_KEY);

    // The documented command, as package.json runs it.
    expect(packageJson.scripts['reencrypt-provider-keys']).toBe('node src/reencrypt-provider-keys.ts');
    const run = () =>
      promisify(execFile)(process.execPath, ['src/reencrypt-provider-keys.ts'], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: {
          ...process.env,
          ...shared,
          PROVIDER_KEY_ENCRYPTION_KEY: NEW_KEY,
          PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY: DEV_PROVIDER_KEY_ENCRYPTION_KEY,
        },
      });
    const before = await chat.parts.prisma.providerKey.count();
    expect((await run()).stdout).toContain(`${before} sealed again under the current key, 0 already under it`);
    const row = await chat.parts.prisma.providerKey.findUniqueOrThrow({
      where: { ownerId_provider: { ownerId: bot.ownerId, provider: 'anthropic' } },
    });
    expect(opensUnder(Buffer.from(NEW_KEY, 'base64'), row)).toBe(true);
    expect((await run()).stdout).toContain(`0 sealed again under the current key, ${before} already under it`);

    // Once every key is under the new one, the previous key may go.
    const rotated = await stack.startChat({ ...shared, PROVIDER_KEY_ENCRYPTION_KEY: NEW_KEY });
    await rotated.client.sendMessage(visitor(bot.uniqueId, QUESTION));
    expect(anthropic.apiKeys.at(-1)).toBe(OWN_KEY);
  });
});
