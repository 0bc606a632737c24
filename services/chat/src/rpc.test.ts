// Which channel a message arrives on, told by what the gateway sends (docs/adr/0040-channels.md).
import { describe, expect, it } from 'vitest';
import { channelOf } from './rpc.ts';
import { developerApi } from './public-chat/channels/developer-api.ts';
import { openAICompatible } from './public-chat/channels/openai-compatible.ts';
import { publicPage } from './public-chat/channels/public-page.ts';
import { widget } from './public-chat/channels/widget.ts';

const request = (extra: Partial<Parameters<typeof channelOf>[0]> = {}) => ({ apiKeyId: '', history: [], embedded: false, ...extra });
const earlier = [{ role: 'user', content: 'Hello' }];

describe('channelOf', () => {
  it('is the developer API with a key, its OpenAI-compatible endpoint when the client sends its history', () => {
    expect(channelOf(request({ apiKeyId: 'k1' }))).toBe(developerApi);
    expect(channelOf(request({ apiKeyId: 'k1', history: earlier }))).toBe(openAICompatible);
    // A key decides it even from the embed page: the gateway checked the key.
    expect(channelOf(request({ apiKeyId: 'k1', embedded: true }))).toBe(developerApi);
  });

  it("is a browser's without a key: the widget's frame or the public page, whatever history it sends", () => {
    expect(channelOf(request({ embedded: true }))).toBe(widget);
    expect(channelOf(request())).toBe(publicPage);
    expect(channelOf(request({ history: earlier }))).toBe(publicPage);
    // A key made of blanks or control characters is none.
    expect(channelOf(request({ apiKeyId: ' \u0007 ' }))).toBe(publicPage);
  });

  it("keeps a browser's site rules and proof of work, and the developer API's key as one visitor", () => {
    for (const browser of [publicPage, widget]) expect(browser).toMatchObject({ siteRules: true, proofOfWork: true, history: 'kept' });
    for (const api of [developerApi, openAICompatible]) expect(api).toMatchObject({ siteRules: false, proofOfWork: false });
    const input = { clientIp: '203.0.113.7', apiKeyId: 'k1' } as Parameters<typeof developerApi.visitor>[0];
    expect(developerApi.visitor(input)).toEqual({ rateLimited: 'key:k1', countedToday: '203.0.113.7' });
    expect(publicPage.visitor(input)).toEqual({ rateLimited: '203.0.113.7', countedToday: '203.0.113.7' });
    expect(openAICompatible.history).toBe('client');
  });
});
