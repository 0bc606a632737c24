// Verified visitors (docs/adr/0046-mcp-server-and-verified-visitors.md) against the real chat,
// chatbot and billing services: a chatbot's identity secret made and rolled by its owner (and no one
// else), a userHash that matches verifying the visitor on the conversation, and every other case
// (forged, missing, another visitor's user id, a hash of the rolled secret, no secret at all) leaving
// the visitor unverified while still answered. The secret is kept sealed, never in the clear.
import { createHmac } from 'node:crypto';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashMatches, identityOf, userHashOf, verifyVisitor, type IdentitySecrets } from '../../src/public-chat/visitor-identity.ts';
import { parseUserHash } from '../../src/core/message-input.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(() => stack.fake.reset());

const hmac = (secret: string, userId: string) => createHmac('sha256', secret).update(userId).digest('hex');

async function conversationOf(bot: { ownerId: string; id: string }, sessionId: string) {
  await stack.makePro(bot.ownerId);
  const { conversation } = await stack.client.getConversation({ ownerId: bot.ownerId, chatbotId: bot.id, conversationId: '', sessionId });
  return conversation!;
}

describe('the identity secret', () => {
  it('is made for the owner, shown once, kept sealed, and rolled by making another', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    expect(await stack.client.getIdentityVerification({ ownerId: bot.ownerId, chatbotId: bot.id })).toMatchObject({ enabled: false });
    const made = await stack.client.createIdentitySecret({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(made.secret).toMatch(/^[0-9a-f]{64}$/);
    const status = await stack.client.getIdentityVerification({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(status.enabled).toBe(true);
    expect(
      Object.keys(status)
        .filter((k) => !k.startsWith('$'))
        .sort(),
    ).toEqual(['createdAt', 'enabled']);
    const [row] = await stack.parts.prisma.$queryRawUnsafe<{ ciphertext: string }[]>(
      `SELECT "ciphertext" FROM "IdentitySecret" WHERE "chatbotId" = $1::uuid`,
      bot.id,
    );
    expect(row.ciphertext).toMatch(/^v1\./);
    expect(row.ciphertext).not.toContain(made.secret);
    const rolled = await stack.client.createIdentitySecret({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(rolled.secret).not.toBe(made.secret);
  });

  it("is refused for another owner's chatbot", async () => {
    const bot = await stack.newChatbot();
    const stranger = await stack.newChatbot();
    const err = await rpcError(stack.client.createIdentitySecret({ ownerId: stranger.ownerId, chatbotId: bot.id }));
    expect(err.code).toBe(Code.NotFound);
    const read = await rpcError(stack.client.getIdentityVerification({ ownerId: stranger.ownerId, chatbotId: bot.id }));
    expect(read.code).toBe(Code.NotFound);
  });
});

describe('a visitor with a userHash', () => {
  it('is verified when the hash matches, and the conversation keeps who', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const { secret } = await stack.client.createIdentitySecret({ ownerId: bot.ownerId, chatbotId: bot.id });
    const sessionId = session('verified-visitor');
    const res = await stack.client.sendMessage({
      ...visitor(bot.uniqueId, 'When do you open?', { sessionId }),
      visitorId: 'user-42',
      visitorEmail: 'ada@example.com',
      visitorName: 'Ada',
      visitorUserHash: hmac(secret, 'user-42').toUpperCase(),
    });
    expect(res.message).not.toBe('');
    const conversation = await conversationOf(bot, res.sessionId);
    expect(conversation).toMatchObject({ verifiedUserId: 'user-42', verifiedEmail: 'ada@example.com', visitorId: 'user-42' });
  });

  it('is unverified, and still answered, when the hash is forged, missing, another visitor’s, or of no secret', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const noSecret = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const { secret } = await stack.client.createIdentitySecret({ ownerId: bot.ownerId, chatbotId: bot.id });
    const cases = [
      { label: 'forged', uniqueId: bot.uniqueId, visitorId: 'user-42', visitorUserHash: hmac('not-the-secret', 'user-42') },
      { label: 'missing', uniqueId: bot.uniqueId, visitorId: 'user-42', visitorUserHash: '' },
      { label: 'malformed', uniqueId: bot.uniqueId, visitorId: 'user-42', visitorUserHash: 'x'.repeat(5000) },
      // Another visitor's user id with this visitor's own (valid) hash.
      { label: 'another user', uniqueId: bot.uniqueId, visitorId: 'user-43', visitorUserHash: hmac(secret, 'user-42') },
      { label: 'no secret', uniqueId: noSecret.uniqueId, visitorId: 'user-42', visitorUserHash: hmac(secret, 'user-42') },
    ];
    for (const c of cases) {
      const res = await stack.client.sendMessage({
        ...visitor(c.uniqueId, 'When do you open?', { sessionId: session(`unverified-${c.label}`) }),
        visitorId: c.visitorId,
        visitorEmail: 'ada@example.com',
        visitorUserHash: c.visitorUserHash,
      });
      expect(res.message, c.label).not.toBe('');
      const conversation = await conversationOf(c.uniqueId === bot.uniqueId ? bot : noSecret, res.sessionId);
      expect(conversation.verifiedUserId, c.label).toBe('');
      expect(conversation.verifiedEmail, c.label).toBe('');
      // What the page said is kept as it was before identity verification: told, not trusted.
      expect(conversation.visitorId, c.label).toBe(c.visitorId);
    }
  });

  it('is unverified with a hash of the secret before a roll', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const { secret: old } = await stack.client.createIdentitySecret({ ownerId: bot.ownerId, chatbotId: bot.id });
    const { secret: current } = await stack.client.createIdentitySecret({ ownerId: bot.ownerId, chatbotId: bot.id });
    const stale = await stack.client.sendMessage({
      ...visitor(bot.uniqueId, 'Hello?', { sessionId: session('rolled-old') }),
      visitorId: 'user-42',
      visitorUserHash: hmac(old, 'user-42'),
    });
    expect((await conversationOf(bot, stale.sessionId)).verifiedUserId).toBe('');
    const fresh = await stack.client.sendMessage({
      ...visitor(bot.uniqueId, 'Hello?', { sessionId: session('rolled-new') }),
      visitorId: 'user-42',
      visitorUserHash: hmac(current, 'user-42'),
    });
    expect((await conversationOf(bot, fresh.sessionId)).verifiedUserId).toBe('user-42');
  });
});

describe('the turn’s question', () => {
  const secrets = (secret: string | null): IdentitySecrets & { reads: number } => {
    const s = {
      reads: 0,
      async secretOf() {
        s.reads++;
        return secret;
      },
      create: () => Promise.reject(new Error('unused')),
      createdAt: () => Promise.resolve(null),
    };
    return s;
  };
  const told = { visitorId: 'user-42', visitorEmail: 'ada@example.com', visitorName: 'Ada' };

  it('answers who a verified visitor is, and only from a matching hash', async () => {
    const kept = secrets('s3cret');
    const identity = await verifyVisitor(kept, 'bot', { ...told, visitorUserHash: userHashOf('s3cret', 'user-42') });
    expect(identityOf({ identity })).toEqual({ verified: true, userId: 'user-42', email: 'ada@example.com', name: 'Ada' });
    expect(await verifyVisitor(kept, 'bot', { ...told, visitorUserHash: userHashOf('other', 'user-42') })).toEqual({ verified: false });
    expect(identityOf({})).toEqual({ verified: false });
    expect(hashMatches('s3cret', 'user-42', userHashOf('s3cret', 'user-4'))).toBe(false);
  });

  it('reads no secret for a message without a hash or a user id', async () => {
    const kept = secrets('s3cret');
    expect(await verifyVisitor(kept, 'bot', { ...told, visitorUserHash: null })).toEqual({ verified: false });
    expect(await verifyVisitor(kept, 'bot', { ...told, visitorId: null, visitorUserHash: userHashOf('s3cret', '') })).toEqual({
      verified: false,
    });
    expect(kept.reads).toBe(0);
  });

  it('takes a hash of 64 hex digits only', () => {
    expect(parseUserHash('A'.repeat(64))).toBe('a'.repeat(64));
    for (const raw of ['', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), undefined]) expect(parseUserHash(raw)).toBeNull();
  });
});
