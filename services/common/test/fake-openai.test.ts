import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeChunks, fakePromptTokens, fakeTokenCount, startFakeOpenAI, type FakeOpenAI } from '../src/testing/fake-openai.ts';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const post = (body: unknown, key = 'sk-test') =>
  fetch(`${fake.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

const messages = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hello there' },
];

describe('fake OpenAI', () => {
  it('answers a plain completion with usage, and records the request', async () => {
    fake.setBehaviour({ reply: 'Hi!' });
    const res = await post({ model: 'gpt-4o-mini', messages });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: fakePromptTokens(messages), completion_tokens: 1, total_tokens: fakePromptTokens(messages) + 1 },
    });
    expect(fake.requests).toEqual([{ model: 'gpt-4o-mini', messages }]);
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('streams server-sent events like OpenAI: deltas, a usage chunk with no choices, then [DONE]', async () => {
    const reply = 'one two three four five';
    fake.setBehaviour({ reply });
    const res = await post({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    const text = chunks.flatMap((c) => c.choices.map((ch: { delta: { content?: string } }) => ch.delta.content ?? '')).join('');
    expect(text).toBe(reply);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: fakePromptTokens(messages), completion_tokens: fakeTokenCount(reply) },
    });
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
  });

  it('sends no usage chunk unless asked', async () => {
    const res = await post({ model: 'gpt-4o-mini', messages, stream: true });
    const chunks = (await res.text())
      .split('\n\n')
      .filter((e) => e && e !== 'data: [DONE]')
      .map((e) => JSON.parse(e.slice(6)));
    expect(chunks.some((c) => 'usage' in c)).toBe(false);
  });

  it('fails on demand with an OpenAI-style error, and refuses a request without a key', async () => {
    fake.setBehaviour({ failWith: 503 });
    const res = await post({ model: 'gpt-4o-mini', messages });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { message: 'Fake failure 503', type: 'server_error' } });
    fake.setBehaviour({ failWith: null });
    const anonymous = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'x', messages }) });
    expect(anonymous.status).toBe(401);
  });

  it('counts tokens at four characters each and splits answers that join back exactly', () => {
    expect(fakeTokenCount('')).toBe(0);
    expect(fakeTokenCount('abcde')).toBe(2);
    expect(fakeChunks('a  b c\nd e f g').join('')).toBe('a  b c\nd e f g');
  });
});
