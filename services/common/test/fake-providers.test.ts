// The Anthropic and Gemini fakes on the wire, as the providers document their HTTP: the events of a
// stream in order, the usage where it is sent, and the error bodies. (The SDKs run against them in
// services/chat/src/models/__tests__/adapters.test.ts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../src/testing/fake-anthropic.ts';
import { startFakeGemini, type FakeGemini } from '../src/testing/fake-gemini.ts';
import { fakePromptTokens, fakeTokenCount } from '../src/testing/fake-openai.ts';

let anthropic: FakeAnthropic;
let gemini: FakeGemini;
beforeAll(async () => {
  [anthropic, gemini] = await Promise.all([startFakeAnthropic(), startFakeGemini()]);
});
afterAll(async () => {
  await Promise.all([anthropic.close(), gemini.close()]);
});
beforeEach(() => {
  anthropic.reset();
  gemini.reset();
});

/** The server-sent events of a response: each one's event name (if any) and parsed data. */
async function events(res: Response): Promise<{ event?: string; data: Record<string, unknown> }[]> {
  const text = await res.text();
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown>;
      return event ? { event, data } : { data };
    });
}

describe('fake Anthropic', () => {
  const post = (body: unknown, headers: Record<string, string> = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }) =>
    fetch(`${anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const body = { model: 'claude-haiku-4-5', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] };

  it('streams message_start, the blocks with their deltas, message_delta with the usage and stop reason, message_stop', async () => {
    anthropic.setBehaviour({ reply: 'Hi there, friend.', toolUses: [{ name: 'look_up', input: { q: 'x' } }], cacheReadTokens: 2 });
    const sent = await events(await post({ ...body, stream: true }));
    expect(sent.map((e) => [e.event, e.data.type])).toEqual([
      ['message_start', 'message_start'],
      ['content_block_start', 'content_block_start'],
      ['content_block_delta', 'content_block_delta'],
      ['content_block_stop', 'content_block_stop'],
      ['content_block_start', 'content_block_start'],
      ['content_block_delta', 'content_block_delta'],
      ['content_block_stop', 'content_block_stop'],
      ['message_delta', 'message_delta'],
      ['message_stop', 'message_stop'],
    ]);
    const prompt = fakePromptTokens([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
    ]);
    expect((sent[0]!.data.message as { usage: unknown }).usage).toEqual({
      input_tokens: prompt - 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 2,
      output_tokens: 1,
    });
    expect(sent[2]!.data.delta).toEqual({ type: 'text_delta', text: 'Hi there, friend.' });
    expect(sent[5]!.data.delta).toEqual({ type: 'input_json_delta', partial_json: '{"q":"x"}' });
    expect(sent[7]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: fakeTokenCount('Hi there, friend.') + fakeTokenCount('{"q":"x"}') },
    });
    expect(anthropic.requests[0]).toMatchObject({ system: 'Be brief.', stream: true });
  });

  it.each([
    [429, 'rate_limit_error'],
    [529, 'overloaded_error'],
    [401, 'authentication_error'],
    [400, 'invalid_request_error'],
  ])("answers %s with Anthropic's error body of type %s", async (status, type) => {
    anthropic.setBehaviour({ failWith: status, failMessage: 'prompt is too long: 250000 tokens > 200000 maximum' });
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ type: 'error', error: { type, message: 'prompt is too long: 250000 tokens > 200000 maximum' } });
  });

  it('refuses a request without a key or with a malformed body', async () => {
    expect((await post(body, { 'anthropic-version': '2023-06-01' })).status).toBe(401);
    const bad = await post({ model: 'x', max_tokens: 0, messages: [] });
    expect([bad.status, ((await bad.json()) as { error: { type: string } }).error.type]).toEqual([400, 'invalid_request_error']);
  });
});

describe('fake Gemini', () => {
  const post = (method: string, query = '', key = 'k') =>
    fetch(`${gemini.url}/v1beta/models/gemini-2.5-flash:${method}${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-goog-api-key': key } : {}) },
      body: JSON.stringify({
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
        generationConfig: { maxOutputTokens: 100 },
      }),
    });

  it('streams a response per piece with alt=sse, the last with the finish reason and the whole usageMetadata', async () => {
    gemini.setBehaviour({
      reply: 'Hi there, friend.',
      functionCalls: [{ name: 'look_up', args: { q: 'x' } }],
      cachedTokens: 2,
      thoughtsTokens: 4,
    });
    const sent = await events(await post('streamGenerateContent', '?alt=sse'));
    expect(sent.length).toBeGreaterThan(1);
    const last = sent.at(-1)!.data as { candidates: { finishReason: string; content: { parts: unknown[] } }[]; usageMetadata: unknown };
    expect(last.candidates[0]!.finishReason).toBe('STOP');
    expect(last.candidates[0]!.content.parts).toEqual([{ functionCall: { name: 'look_up', args: { q: 'x' } } }]);
    const prompt = fakePromptTokens([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
    ]);
    const candidates = fakeTokenCount('Hi there, friend.') + fakeTokenCount('{"q":"x"}');
    expect(last.usageMetadata).toEqual({
      promptTokenCount: prompt,
      candidatesTokenCount: candidates,
      totalTokenCount: prompt + candidates + 4,
      cachedContentTokenCount: 2,
      thoughtsTokenCount: 4,
    });
    expect(gemini.requests[0]).toMatchObject({ model: 'gemini-2.5-flash', stream: true });
  });

  it.each([
    [429, 'RESOURCE_EXHAUSTED'],
    [503, 'UNAVAILABLE'],
    [401, 'UNAUTHENTICATED'],
    [400, 'INVALID_ARGUMENT'],
  ])("answers %s with Google's error body of status %s", async (code, status) => {
    gemini.setBehaviour({ failWith: code });
    const res = await post('generateContent');
    expect(res.status).toBe(code);
    expect(await res.json()).toEqual({ error: { code, message: `Fake failure ${code}`, status } });
  });

  it('refuses a request without a key, and a stream not asked as server-sent events', async () => {
    expect((await post('generateContent', '', '')).status).toBe(401);
    expect((await post('streamGenerateContent')).status).toBe(400);
  });
});
