// The check a workspace's own provider key passes before it is stored (docs/adr/0043-own-provider-keys.md),
// for each wire protocol through its official SDK against its fake: a key the provider accepts is
// stored and shown by its last four characters; a key it refuses is told "The provider refused this
// key." (the gateway's 400) and never stored; a provider that cannot be reached is told so (503) and
// nothing is stored. The provider's own words and the key never reach the owner. Real chatbot and
// billing services, PostgreSQL, Redis.
import { Code } from '@connectrpc/connect';
import { startFakeAnthropic, type FakeAnthropic } from '@parley/common/testing/fake-anthropic.ts';
import { startFakeGemini, type FakeGemini } from '@parley/common/testing/fake-gemini.ts';
import type { Provider } from '@parley/common/models/catalogue.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEY_REFUSED, PROVIDER_UNREACHABLE } from '../../src/provider-keys/provider-key-check.ts';
import { rpcError, startChatStack, type ChatStack, type ChatUnderTest } from './harness.ts';

/** Nothing listens on port 9 (discard) here: a connection is refused at once. */
const UNREACHABLE = 'http://127.0.0.1:9';

let stack: ChatStack;
let chat: ChatUnderTest;
let down: ChatUnderTest;
let anthropic: FakeAnthropic;
let gemini: FakeGemini;
beforeAll(async () => {
  [anthropic, gemini] = await Promise.all([startFakeAnthropic(), startFakeGemini()]);
  stack = await startChatStack({
    ANTHROPIC_API_KEY: 'operator-anthropic-key',
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: 'operator-gemini-key',
    GEMINI_BASE_URL: gemini.url,
  });
  chat = stack;
  // Every provider configured, none reachable.
  down = await stack.startChat({
    OPENAI_BASE_URL: `${UNREACHABLE}/v1`,
    ANTHROPIC_API_KEY: 'operator-anthropic-key',
    ANTHROPIC_BASE_URL: UNREACHABLE,
    GEMINI_API_KEY: 'operator-gemini-key',
    GEMINI_BASE_URL: UNREACHABLE,
  });
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all([anthropic?.close(), gemini?.close()]);
});
beforeEach(() => {
  stack.fake.reset();
  anthropic.reset();
  gemini.reset();
});

const KEYS: Record<Provider, { accepted: string; refused: string }> = {
  openai: { accepted: 'sk-proj-workspace-own-key-ab12', refused: 'sk-proj-revoked-key-0000' },
  anthropic: { accepted: 'sk-ant-workspace-own-key-cd34', refused: 'sk-ant-revoked-key-0000' },
  gemini: { accepted: 'AIzaSy-workspace-own-key-ef56', refused: 'AIzaSy-revoked-key-0000' },
};

/** Each fake refuses `key` on its model list, and reports the keys its model list was called with. */
const fakes: Record<Provider, { refuse: (key: string) => void; checked: () => string[] }> = {
  openai: { refuse: (key) => stack.fake.setBehaviour({ refusedKeys: [key] }), checked: () => stack.fake.modelListKeys },
  anthropic: { refuse: (key) => anthropic.setBehaviour({ refusedKeys: [key] }), checked: () => anthropic.modelListKeys },
  gemini: { refuse: (key) => gemini.setBehaviour({ refusedKeys: [key] }), checked: () => gemini.modelListKeys },
};

/** A response as text, to look for the key in every field. */
const text = (message: unknown) => JSON.stringify(message, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
const newOwnerId = async () => (await stack.newChatbot()).ownerId;
const stored = (ownerId: string) => chat.parts.prisma.providerKey.count({ where: { ownerId } });

describe.each(['openai', 'anthropic', 'gemini'] as const)('the %s key check', (provider) => {
  const { accepted, refused } = KEYS[provider];

  it('stores a key the provider accepts, after one call of its model list with that key', async () => {
    const ownerId = await newOwnerId();
    const saved = await chat.client.setProviderKey({ ownerId, provider, key: accepted });
    expect(saved.key).toMatchObject({ provider, lastFour: accepted.slice(-4) });
    expect(text(saved)).not.toContain(accepted);
    expect(fakes[provider].checked()).toEqual([accepted]);
    expect((await chat.client.listProviderKeys({ ownerId })).keys.map((k) => [k.provider, k.lastFour])).toEqual([
      [provider, accepted.slice(-4)],
    ]);
  });

  it('refuses a key the provider refuses, with the fixed message, and stores nothing', async () => {
    const ownerId = await newOwnerId();
    fakes[provider].refuse(refused);
    const err = await rpcError(chat.client.setProviderKey({ ownerId, provider, key: refused }));
    expect([err.code, err.rawMessage]).toEqual([Code.FailedPrecondition, KEY_REFUSED]);
    expect(err.message).not.toContain('revoked');
    expect(fakes[provider].checked()).toEqual([refused]);
    expect(await stored(ownerId)).toBe(0);
  });

  it('says the provider could not be reached, and stores nothing', async () => {
    const ownerId = await newOwnerId();
    const err = await rpcError(down.client.setProviderKey({ ownerId, provider, key: accepted }));
    expect([err.code, err.rawMessage]).toEqual([Code.Unavailable, PROVIDER_UNREACHABLE]);
    expect(await down.parts.prisma.providerKey.count({ where: { ownerId } })).toBe(0);
  });
});
