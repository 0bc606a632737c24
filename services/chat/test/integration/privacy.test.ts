// Personal data kept from the model (docs/adr/0049-personal-data-kept-from-the-model.md), through the
// real chat, chatbot and billing services and the fake OpenAI server: the model never receives a
// detail of the 200 generated messages, the visitor reads the answer with what the model echoed put
// back (streamed and not), the stored conversation and the analytics event hold what the owner chose,
// the owner's patterns are checked when saved, and a chatbot with it off is unchanged.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Code } from '@connectrpc/connect';
import { echoReply, type FakeOpenAIRequest } from '@parley/common/testing/fake-openai.ts';
import { compactDetail, PERSONAL_DATA_SAMPLES } from '@parley/common/testing/personal-data-corpus.ts';
import { REDACTION_PATTERN_UNSAFE } from '@parley/common/personal-data.ts';
import { rpcError, session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
beforeEach(() => {
  stack.fake.reset();
  stack.fake.setBehaviour({ reply: echoReply });
});
afterAll(async () => {
  await stack?.stop();
});

const ECHO = 'This is a test answer to: ';

async function privateBot(privacy: { keepOriginal?: boolean; patterns?: string[] } = {}) {
  const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
  await stack.setCredit(bot.ownerId, '1000');
  await stack.chatbots.updateChatbot({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    privacy: {
      redactPersonalData: true,
      keepOriginal: privacy.keepOriginal ?? false,
      patterns: privacy.patterns ? { patterns: privacy.patterns } : undefined,
    },
  });
  return bot;
}

/** Everything the model provider was sent, as one text. */
const sentToModel = (requests: FakeOpenAIRequest[]) => JSON.stringify(requests.map((r) => r.messages));

const storedContents = async (chatbotId: string) =>
  (await stack.parts.prisma.message.findMany({ where: { conversation: { chatbotId } }, orderBy: { id: 'asc' } })).map((m) => m.content);

describe('personal data kept from the model', () => {
  it('sends the model none of the details of 200 varied messages, and the visitor reads them back', async () => {
    const bot = await privateBot();
    for (const [i, sample] of PERSONAL_DATA_SAMPLES.entries()) {
      // Each its own visitor, so the per-minute limits of one visitor never refuse the run.
      const res = await stack.client.sendMessage(visitor(bot.uniqueId, sample.text, { clientIp: `198.51.${i >> 8}.${i & 255}` }));
      expect(res.message).toBe(ECHO + sample.text);
    }
    expect(stack.fake.requests).toHaveLength(200);
    const sent = sentToModel(stack.fake.requests);
    const sentCompact = sent.replace(/[^0-9A-Za-z@.]/g, '');
    for (const { details } of PERSONAL_DATA_SAMPLES) {
      for (const detail of details) {
        expect(sent).not.toContain(detail);
        expect(sentCompact).not.toContain(compactDetail(detail));
      }
    }
    expect(sent).toMatch(/\[(EMAIL|PHONE|CARD|IBAN)_1\]/);
  }, 120_000);

  it('restores the echoed placeholders in a streamed answer, and stores and counts the words as the model read them', async () => {
    const bot = await privateBot();
    const text = 'I am jo@example.com, card 4111-1111-1111-1111, call +44 20 7946 0958';
    let streamed = '';
    let done = '';
    for await (const res of stack.client.streamMessage(visitor(bot.uniqueId, text, { sessionId: session('private-stream') }))) {
      if (res.event.case === 'delta') streamed += res.event.value;
      if (res.event.case === 'done') done = res.event.value.message;
    }
    expect(streamed).toBe(ECHO + text);
    expect(done).toBe(ECHO + text);
    const model = stack.fake.requests.at(-1)!.messages.at(-1)!.content;
    expect(model).toBe('I am [EMAIL_1], card [CARD_1], call [PHONE_1]');
    expect(await storedContents(bot.id)).toEqual([model, ECHO + model]);
    const interactions = (await stack.interactionJobs()).filter((i) => i.chatbotId === bot.id);
    expect(interactions.map((i) => i.question)).toEqual([model]);

    // The next message's history is the stored one: placeholders, and a new detail takes the next number.
    await stack.client.sendMessage(visitor(bot.uniqueId, 'or ann@example.com', { sessionId: session('private-stream') }));
    const messages = stack.fake.requests
      .at(-1)!
      .messages.slice(1)
      .map((m) => m.content);
    expect(messages).toEqual([model, ECHO + model, 'or [EMAIL_2]']);
  });

  it("keeps the visitor's words as typed when the owner chooses so, still redacting the history for the model", async () => {
    const bot = await privateBot({ keepOriginal: true, patterns: ['CUST-\\d{6}'] });
    const text = 'Customer CUST-123456 here, IBAN DE89 3704 0044 0532 0130 00';
    const res = await stack.client.sendMessage(visitor(bot.uniqueId, text, { sessionId: session('private-keep') }));
    expect(res.message).toBe(ECHO + text);
    expect(stack.fake.requests.at(-1)!.messages.at(-1)!.content).toBe('Customer [CUSTOM_1] here, IBAN [IBAN_1]');
    expect(await storedContents(bot.id)).toEqual([text, ECHO + text]);
    const interactions = (await stack.interactionJobs()).filter((i) => i.chatbotId === bot.id);
    expect(interactions.map((i) => i.question)).toEqual([text]);

    await stack.client.sendMessage(visitor(bot.uniqueId, 'Thanks', { sessionId: session('private-keep') }));
    const sent = sentToModel([stack.fake.requests.at(-1)!]);
    expect(sent).not.toContain('CUST-123456');
    expect(sent).not.toContain('DE89');
    expect(sent).toContain('[CUSTOM_1]');
  });

  it('leaves a chatbot with it off unchanged', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine.'] });
    const text = 'I am jo@example.com, card 4111 1111 1111 1111';
    const res = await stack.client.sendMessage(visitor(bot.uniqueId, text, { sessionId: session('private-off') }));
    expect(res.message).toBe(ECHO + text);
    expect(stack.fake.requests.at(-1)!.messages.at(-1)!.content).toBe(text);
    expect(await storedContents(bot.id)).toEqual([text, ECHO + text]);
    const { chatbot } = await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(chatbot!.privacy).toMatchObject({ redactPersonalData: false, keepOriginal: false, patterns: [] });
  });

  it("refuses an owner's pattern that could backtrack catastrophically, and saves a safe one", async () => {
    const bot = await stack.newChatbot();
    const err = await rpcError(
      stack.chatbots.updateChatbot({ ownerId: bot.ownerId, chatbotId: bot.id, privacy: { patterns: { patterns: ['(a+)+$'] } } }),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toContain(REDACTION_PATTERN_UNSAFE);
    const { chatbot } = await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      privacy: { redactPersonalData: true, patterns: { patterns: [' CUST-\\d{6} ', ''] } },
    });
    expect(chatbot!.privacy).toMatchObject({ redactPersonalData: true, keepOriginal: false, patterns: ['CUST-\\d{6}'] });
  });
});
