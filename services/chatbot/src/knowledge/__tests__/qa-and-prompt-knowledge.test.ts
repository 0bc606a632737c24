// Q&A pairs and the knowledge GetPromptKnowledge hands the chat service, through the real RPCs and
// PostgreSQL: a pair is ready at once and counted; a visitor message asking its question (or a close
// paraphrase, by the chatbot's own stemming) comes back as qa_match; every passage names its entry
// (title, address) whether the whole knowledge base fits or chunks are retrieved.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from '../../../test/integration/harness.ts';
import { ANSWER_REQUIRED, QUESTION_REQUIRED, QUESTION_TOO_LONG, answerTooLong } from '../add-qa-entry.ts';

let svc: TestChatbotService;

beforeAll(async () => {
  svc = await startChatbotService();
});

afterAll(async () => {
  await svc?.stop();
});

async function ownBot() {
  const owner = newOwner('qa');
  const bot = await svc.createChatbot(owner);
  return { bot, ref: { ownerId: owner, chatbotId: bot.id } };
}

const ask = (uniqueId: string, query: string, budgetChars = 100_000) => svc.client.getPromptKnowledge({ uniqueId, query, budgetChars });

describe('AddQaEntry', () => {
  it('adds a ready pair (title = question, content = answer), counted in qaPairs and searchable', async () => {
    const { bot, ref } = await ownBot();
    const { entry, knowledgeBase } = await svc.client.addQaEntry({
      ...ref,
      question: '  What are your   opening hours? ',
      answer: ' 9 to 5, Monday to Friday. ',
    });
    expect(entry).toMatchObject({
      status: 'ready',
      title: 'What are your opening hours?',
      question: 'What are your opening hours?',
      content: '9 to 5, Monday to Friday.',
      source: { type: 'qa' },
    });
    expect(knowledgeBase!.text).toBe('9 to 5, Monday to Friday.');
    const row = await svc.db.chatbot.findUniqueOrThrow({ where: { id: bot.id } });
    expect(row).toMatchObject({ qaPairs: 1, knowledgeChars: '9 to 5, Monday to Friday.'.length });
    const { chunks } = await svc.client.retrieve({ chatbotId: bot.id, query: 'opening hours' });
    expect(chunks.map((c) => c.entryId)).toEqual([entry!.id]);
    const { chatbot } = await svc.client.getPublicChatbot({ uniqueId: bot.uniqueId });
    expect(chatbot!.qaPairs).toBe(1);
  });

  it('refuses a missing or too long question or answer', async () => {
    const { ref } = await ownBot();
    await expectRpcError(svc.client.addQaEntry({ ...ref, question: ' ', answer: 'a' }), Code.InvalidArgument, QUESTION_REQUIRED);
    await expectRpcError(svc.client.addQaEntry({ ...ref, question: 'q', answer: ' ' }), Code.InvalidArgument, ANSWER_REQUIRED);
    await expectRpcError(
      svc.client.addQaEntry({ ...ref, question: 'q'.repeat(501), answer: 'a' }),
      Code.InvalidArgument,
      QUESTION_TOO_LONG,
    );
    const max = svc.config.MAX_ENTRY_CHARS;
    await expectRpcError(
      svc.client.addQaEntry({ ...ref, question: 'q', answer: 'a'.repeat(max + 1) }),
      Code.InvalidArgument,
      answerTooLong(max),
    );
  });
});

describe('GetPromptKnowledge qa_match', () => {
  it('matches the same question, paraphrases with the same lexemes, and not other messages', async () => {
    const { bot, ref } = await ownBot();
    const { entry } = await svc.client.addQaEntry({ ...ref, question: 'What are your opening hours?', answer: '9 to 5.' });
    await svc.client.addQaEntry({ ...ref, question: 'Do you ship abroad?', answer: 'Yes, to all of Europe.' });
    await svc.client.addTextEntry({ ...ref, text: 'We sell garden robots.' });
    const match = { entryId: entry!.id, question: 'What are your opening hours?', answer: '9 to 5.' };
    for (const message of [
      'What are your opening hours?',
      'what are the opening hours',
      'WHAT ARE YOUR OPENING HOURS!!',
      'When do you open?',
    ]) {
      expect((await ask(bot.uniqueId, message)).qaMatch, message).toMatchObject(match);
    }
    for (const message of ['Do you sell robots?', 'hours of the robot battery and charging time', '']) {
      expect((await ask(bot.uniqueId, message)).qaMatch, message).toBeUndefined();
    }
    // Retrieved knowledge too (budget 0), and the match still comes.
    expect((await ask(bot.uniqueId, 'opening hours?', 0)).qaMatch).toMatchObject(match);
  });

  it('matches a question of stop words only, or in Chinese, when the text is the same', async () => {
    const { bot, ref } = await ownBot();
    const { entry } = await svc.client.addQaEntry({ ...ref, question: 'Who are you?', answer: 'A helpful robot.' });
    const { entry: zh } = await svc.client.addQaEntry({ ...ref, question: '你们几点开门？', answer: '早上九点。' });
    expect((await ask(bot.uniqueId, 'who are you')).qaMatch?.entryId).toBe(entry!.id);
    expect((await ask(bot.uniqueId, 'who is it')).qaMatch).toBeUndefined();
    expect((await ask(bot.uniqueId, '你们几点开门')).qaMatch?.entryId).toBe(zh!.id);
  });

  it('stops matching once the pair is deleted', async () => {
    const { bot, ref } = await ownBot();
    const { entry } = await svc.client.addQaEntry({ ...ref, question: 'Is parking free?', answer: 'Yes.' });
    await svc.client.deleteTextEntry({ ...ref, entryId: entry!.id });
    expect(await svc.db.chatbot.findUniqueOrThrow({ where: { id: bot.id } })).toMatchObject({ qaPairs: 0, knowledgeChars: 0 });
    const answer = await ask(bot.uniqueId, 'Is parking free?');
    expect(answer.qaMatch).toBeUndefined();
    expect(answer.chatbot!.qaPairs).toBe(0);
  });
});

describe('GetPromptKnowledge knowledge', () => {
  it('names each passage: one per ready entry when the whole knowledge base fits, else each retrieved chunk', async () => {
    const { bot, ref } = await ownBot();
    await svc.client.addTextEntry({ ...ref, text: 'Refunds are possible within 30 days of purchase.' });
    const { entry: qa } = await svc.client.addQaEntry({ ...ref, question: 'Do you ship abroad?', answer: 'Yes, to all of Europe.' });
    // A website entry as the ingest job leaves it, and one still processing (never in the prompt).
    const page = await svc.db.textEntry.create({
      data: {
        chatbotId: bot.id,
        title: 'Pricing | Example',
        content: 'The Pro robot costs 899 euros.',
        sourceType: 'url',
        sourceUrl: 'https://example.com/pricing',
      },
    });
    await svc.db.chatbot.update({ where: { id: bot.id }, data: { knowledgeChars: { increment: page.content.length } } });
    await svc.db.knowledgeChunk.create({
      data: { entryId: page.id, chatbotId: bot.id, position: 0, content: page.content, searchConfig: 'english' },
    });
    await svc.db.$executeRawUnsafe(
      `UPDATE "KnowledgeChunk" SET "searchVector" = to_tsvector('english', "content") WHERE "entryId" = $1::uuid`,
      page.id,
    );
    await svc.db.textEntry.create({ data: { chatbotId: bot.id, title: 'later', content: '', sourceType: 'url', status: 'processing' } });

    const whole = await ask(bot.uniqueId, 'How much is the Pro robot?');
    expect(whole.wholeKnowledge).toBe(true);
    const entries = (await svc.client.getChatbot(ref)).chatbot!.knowledgeBase!.textEntries;
    expect(whole.knowledge.map(({ text, entryId, title, url }) => ({ text, entryId, title, url }))).toEqual([
      { text: 'Refunds are possible within 30 days of purchase.', entryId: entries[0].id, title: entries[0].title, url: '' },
      { text: 'Do you ship abroad?\n\nYes, to all of Europe.', entryId: qa!.id, title: 'Do you ship abroad?', url: '' },
      { text: 'The Pro robot costs 899 euros.', entryId: page.id, title: 'Pricing | Example', url: 'https://example.com/pricing' },
    ]);
    expect(whole.passages).toEqual([whole.knowledge.map((p) => p.text).join('\n\n')]);

    const retrieved = await ask(bot.uniqueId, 'How much is the Pro robot?', 0);
    expect(retrieved.wholeKnowledge).toBe(false);
    expect(retrieved.knowledge[0]).toMatchObject({ entryId: page.id, title: 'Pricing | Example', url: 'https://example.com/pricing' });
    expect(retrieved.passages).toEqual(retrieved.knowledge.map((p) => p.text));
  });
});
