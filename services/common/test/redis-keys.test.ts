import { describe, expect, it } from 'vitest';
import { REDIS_KEY_FAMILIES, redisKeys } from '../src/redis-keys.ts';

// The layouts below are live data's addresses: this test fails on any change, on purpose.
describe('redisKeys', () => {
  const keys = redisKeys('parley');

  it('builds each key as it has always been stored', () => {
    expect(keys.chatRateVisitor('bot_1', '203.0.113.7')).toBe('parley:chat-rate:visitor:bot_1:203.0.113.7');
    expect(keys.chatRateChatbot('bot_1')).toBe('parley:chat-rate:chatbot:bot_1');
    expect(keys.chatbotRevision('c0ffee')).toBe('parley:chatbot-revision:c0ffee');
    expect(keys.chatTurns('c0ffee', 'session')).toBe('parley:chat-turns:c0ffee:session');
    expect(keys.chatTurnsOfChatbot('c0ffee')).toBe('parley:chat-turns:c0ffee:*');
    expect(keys.loginFailuresIpAccount('', 'h')).toBe('parley:auth:login-failures:ip-account:-:h');
    expect(keys.loginFailuresIpAccount('10.0.0.1', 'h')).toBe('parley:auth:login-failures:ip-account:10.0.0.1:h');
    expect(keys.loginFailuresIp('10.0.0.1')).toBe('parley:auth:login-failures:ip:10.0.0.1');
    expect(keys.loginFailuresAccount('h')).toBe('parley:auth:login-failures:account:h');
    expect(keys.registrationsIp('10.0.0.1')).toBe('parley:auth:registrations:ip:10.0.0.1');
    expect(keys.passwordResetsEmail('h')).toBe('parley:auth:password-resets:email:h');
    expect(keys.passwordResetsIp('10.0.0.1')).toBe('parley:auth:password-resets:ip:10.0.0.1');
    expect(keys.handoff('c0ffee', 'session')).toBe('parley:handoff:c0ffee:session');
    expect(keys.conversationChannel('c0nv')).toBe('parley:conversation:c0nv');
    expect(keys.inboxChannel('owner')).toBe('parley:inbox:owner');
    expect(keys.accessChannel()).toBe('parley:access:changes');
    expect(keys.apiRateKey('k3y')).toBe('parley:api-rate:key:k3y');
    expect(keys.apiKeyFailuresIp('203.0.113.7')).toBe('parley:api-key-failures:ip:203.0.113.7');
  });

  it('keeps the families apart', () => {
    expect(new Set(Object.values(REDIS_KEY_FAMILIES)).size).toBe(Object.keys(REDIS_KEY_FAMILIES).length);
  });
});
