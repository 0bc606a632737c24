import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeEmbedding } from '../src/testing/fake-embedding.ts';
import {
  echoReply,
  fakeChunks,
  fakePromptTokens,
  fakeTokenCount,
  groundedReply,
  promptPassages,
  startFakeOpenAI,
  structuredReply,
  type FakeOpenAI,
  type FakeOpenAIRequest,
} from '../src/testing/fake-openai.ts';

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

  it('answers from the prompt by default: the passage sharing the most words with the question, cited', async () => {
    const system = [
      'You are "Shop".',
      '<knowledge_base>',
      '[1] Hours\nThe bakery opens at seven in the morning. It closes at six.',
      '',
      '---',
      '',
      '[2] Refunds\nRefunds are accepted within thirty days with a receipt. Store credit otherwise.',
      '</knowledge_base>',
    ].join('\n');
    const res = await post({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'Are refunds accepted without a receipt?' },
      ],
    });
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('Refunds are accepted within thirty days with a receipt. [2]');
  });
});

describe('groundedReply', () => {
  const request = (system: string, question: string, history: { role: string; content: string }[] = []): FakeOpenAIRequest => ({
    model: 'gpt-4o-mini',
    messages: [{ role: 'system', content: system }, ...history, { role: 'user', content: question }],
  });
  const kb = (...passages: string[]) => `Rules.\n\n<knowledge_base>\n${passages.join('\n\n---\n\n')}\n</knowledge_base>`;

  it('needs two shared words that say something, and prefers the passage sharing most', () => {
    const system = kb('[1] A\nShipping is free above fifty dollars.', '[2] B\nShipping abroad costs twenty dollars per parcel.');
    expect(groundedReply(request(system, 'How much is shipping abroad per parcel?'))).toBe(
      'Shipping abroad costs twenty dollars per parcel. [2]',
    );
    expect(groundedReply(request(system, 'Is shipping free?'))).toBe('Shipping is free above fifty dollars. [1]');
    // One shared word, or only trivial ones, is not enough.
    expect(groundedReply(request(system, 'What about shipping?'))).toBe("I don't know.");
    expect(groundedReply(request(system, 'is the what'))).toBe("I don't know.");
  });

  it("answers with the owner's no-answer message when the prompt carries one", () => {
    const system = `Rules.\n<no_answer>\nPlease write to help@example.com.\n</no_answer>\n${kb('[1] A\nWe sell bread.')}`;
    expect(groundedReply(request(system, 'Do you repair bicycles?'))).toBe('Please write to help@example.com.');
    expect(groundedReply(request('', 'anything'))).toBe("I don't know.");
  });

  it('answers the last user message, cuts the first sentence at 200 characters, and reads Chinese punctuation', () => {
    const long = `${'Bread '.repeat(60)}is baked daily.`;
    const system = kb(`[1] Long\n${long}`, '[2] 中文\n商店九点开门。周日休息。');
    expect(groundedReply(request(system, 'Is bread baked daily?'))).toBe(`${[...long].slice(0, 200).join('').trimEnd()} [1]`);
    const history = [
      { role: 'user', content: 'Is bread baked daily?' },
      { role: 'assistant', content: 'Yes.' },
    ];
    expect(groundedReply(request(system, 'unrelated words here', history))).toBe("I don't know.");
    expect(groundedReply(request(kb('[1] x\n商店九点开门。周日休息。'), '商店九点开门 周日休息'))).toBe('商店九点开门。 [1]');
  });

  it('reads the numbered passages of the prompt, a separator inside a passage included', () => {
    expect(promptPassages(kb('[1] T\nOne', '[2]\nTwo', 'tail of two'))).toEqual([
      { n: 1, text: 'One' },
      { n: 2, text: 'Two\n\n---\n\ntail of two' },
    ]);
    expect(promptPassages('<knowledge_base>\n(The knowledge base is empty.)\n</knowledge_base>')).toEqual([]);
  });

  it('still offers the echo of earlier versions', () => {
    expect(echoReply(request('', 'Hi'))).toBe('This is a test answer to: Hi');
  });
});

describe('fake embeddings', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });

  const embed = (body: unknown) =>
    fetch(`${fake.url}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify(body),
    });

  it("answers OpenAI's list of embeddings, one per input, in order, with fakeEmbedding's vectors", async () => {
    const res = await embed({ model: 'text-embedding-3-small', input: ['first text', 'second'], encoding_format: 'float' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: fakeEmbedding('first text') },
        { object: 'embedding', index: 1, embedding: fakeEmbedding('second') },
      ],
      model: 'text-embedding-3-small',
      usage: {
        prompt_tokens: fakeTokenCount('first text') + fakeTokenCount('second'),
        total_tokens: fakeTokenCount('first text') + fakeTokenCount('second'),
      },
    });
    expect(fake.embeddingRequests).toHaveLength(1);
    expect(fake.requests).toHaveLength(0);
  });

  it('takes one string, a number of dimensions, and base64 as the SDK asks by default', async () => {
    const one = await (await embed({ model: 'm', input: 'alone', dimensions: 8 })).json();
    expect(one.data).toEqual([{ object: 'embedding', index: 0, embedding: fakeEmbedding('alone', 8) }]);
    const packed = await (await embed({ model: 'm', input: ['x'], encoding_format: 'base64' })).json();
    const bytes = Buffer.from(packed.data[0].embedding, 'base64');
    const floats = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(floats).toEqual(fakeEmbedding('x').map((v) => Math.fround(v)));
  });

  it('refuses a malformed request, and fails on demand', async () => {
    expect((await embed({ model: 'm', input: [] })).status).toBe(400);
    expect((await embed({ model: 'm', input: [1] })).status).toBe(400);
    expect((await embed({ input: 'x' })).status).toBe(400);
    fake.setBehaviour({ embeddingsFailWith: 503 });
    expect((await embed({ model: 'm', input: 'x' })).status).toBe(503);
    fake.reset();
    expect((await embed({ model: 'm', input: 'x' })).status).toBe(200);
  });
});

describe('structuredReply', () => {
  const request = (name: string | null, system: string, user: string): FakeOpenAIRequest => ({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    ...(name ? { response_format: { type: 'json_schema', json_schema: { name, schema: {} } } } : {}),
  });

  it('answers only a request asking for the judge or the generated cases', () => {
    expect(structuredReply(request(null, '<judge_rubric>\n1. Faithful.\n</judge_rubric>', 'x'))).toBeNull();
    expect(structuredReply(request('something_else', '', 'x'))).toBeNull();
  });

  it('grades each criterion: grounded when the answer shares two words with the passages, tone always met', () => {
    const system = 'Grade.\n\n<judge_rubric>\n1. Faithful to the passages.\n2. A friendly tone.\n</judge_rubric>';
    const grounded =
      '<answer>\nThe museum opens at ten.\n</answer>\n\n<cited_passages>\n[1] Hours\nThe museum opens at ten daily.\n</cited_passages>';
    expect(JSON.parse(structuredReply(request('parley_judge', system, grounded))!)).toEqual({
      verdicts: [
        { criterion: 1, passed: true, reason: 'The cited passages support the answer.' },
        { criterion: 2, passed: true, reason: 'The tone is polite and clear.' },
      ],
    });
    const unsupported = '<answer>\nI do not know.\n</answer>\n\n<cited_passages>\n(none)\n</cited_passages>';
    expect(JSON.parse(structuredReply(request('parley_judge', system, unsupported))!).verdicts[0]).toEqual({
      criterion: 1,
      passed: false,
      reason: 'No cited passage supports the answer.',
    });
  });

  it('writes one case per entry of the knowledge, at most the count asked', () => {
    const system =
      'Write.\n\n<generate_test_cases count="1">\n# Hours\nThe museum opens at ten. Closed Mondays.\n\nThe shop sells books.\n</generate_test_cases>';
    expect(JSON.parse(structuredReply(request('parley_test_cases', system, 'Write 1 test cases.'))!)).toEqual({
      cases: [{ question: 'Tell me: the museum opens at ten?', facts: ['The museum opens at ten.'] }],
    });
  });
});
