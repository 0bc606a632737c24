// The unanswered-question loop end to end: visitors' questions the knowledge cannot answer reach the
// groups through the real public chat, the analytics event and its worker; the owner answers a group
// (a Q&A pair on the real chatbot service, the group resolved) and the next such question is answered
// with it verbatim; dismiss; the open counts; Pro only; another owner's group is NOT_FOUND.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcError, session, startChatStack, visitor, type ChatStack } from '../../../test/integration/harness.ts';

let stack: ChatStack;
beforeAll(async () => {
  stack = await startChatStack();
});
afterAll(async () => {
  await stack?.stop();
});

const KNOWLEDGE = ['The bakery opens at seven in the morning.'];

/** The chatbot's unanswered groups once the analytics worker has counted `n` unanswered questions. */
async function groupsAfter(bot: { id: string }, n: number) {
  for (const deadline = Date.now() + 15_000; ;) {
    const groups = await stack.parts.prisma.questionCluster.findMany({ where: { chatbotId: bot.id, kind: 'unanswered' } });
    if (groups.reduce((a, g) => a + g.count, 0) >= n) return groups;
    if (Date.now() > deadline) throw new Error(`unanswered questions not counted: ${JSON.stringify(groups)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the unanswered-question loop', () => {
  it('groups unanswered questions, answers a group with a Q&A pair that then answers the next such question, and dismisses another', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.makePro(bot.ownerId);
    const ask = (message: string, label: string) => stack.client.sendMessage(visitor(bot.uniqueId, message, { sessionId: session(label) }));
    expect((await ask('Do you repair bicycles?', 'loop-1')).sources).toEqual([]);
    await ask('Can you repair my bicycle?', 'loop-2');
    await ask('Do you repair bicycles?', 'loop-3');
    await ask('Is there parking for cars?', 'loop-4');
    expect((await ask('When does the bakery open in the morning?', 'loop-5')).sources).toHaveLength(1);
    await groupsAfter(bot, 4);

    const { questions } = await stack.client.listUnansweredQuestions({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(questions.map((q) => [q.question, q.count, q.status])).toEqual([
      ['Do you repair bicycles?', 3, 'open'],
      ['Is there parking for cars?', 1, 'open'],
    ]);
    expect(questions[0].examples).toEqual(['Do you repair bicycles?', 'Can you repair my bicycle?']);
    expect(questions[0].lastSeen!.seconds).toBeGreaterThan(0n);
    expect((await stack.client.countUnansweredQuestions({ ownerId: bot.ownerId })).openByChatbot).toEqual({ [bot.id]: 2 });

    const blank = await rpcError(
      stack.client.answerUnansweredQuestion({ ownerId: bot.ownerId, chatbotId: bot.id, questionId: questions[0].id, answer: '  ' }),
    );
    expect([blank.code, blank.rawMessage]).toEqual([Code.InvalidArgument, 'Answer is required']);

    const answer = 'Yes: bring your bicycle to the back door on Saturdays.';
    const { question: resolved } = await stack.client.answerUnansweredQuestion({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      questionId: questions[0].id,
      answer,
    });
    expect(resolved).toMatchObject({ id: questions[0].id, status: 'resolved' });
    // Answered again (a second tab): refused, no second pair.
    const again = await rpcError(
      stack.client.answerUnansweredQuestion({ ownerId: bot.ownerId, chatbotId: bot.id, questionId: questions[0].id, answer }),
    );
    expect([again.code, again.rawMessage]).toEqual([Code.Aborted, 'This question has already been answered.']);
    const { chatbot } = await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(chatbot!.knowledgeBase!.textEntries.filter((e) => e.content === answer)).toHaveLength(1);
    expect(chatbot!.knowledgeBase!.textEntries.find((e) => e.id === resolved!.answerEntryId)).toMatchObject({
      question: 'Do you repair bicycles?',
      content: answer,
      status: 'ready',
    });

    // The next visitor asking it gets the owner's answer verbatim, citing the pair, without the model.
    stack.fake.reset();
    const next = await ask('do you repair bicycles', 'loop-6');
    expect(next.message).toBe(answer);
    expect(next.sources.map((s) => s.entryId)).toEqual([resolved!.answerEntryId]);
    expect(stack.fake.requests).toHaveLength(0);

    const { question: dismissed } = await stack.client.dismissUnansweredQuestion({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      questionId: questions[1].id,
    });
    expect(dismissed).toMatchObject({ status: 'dismissed', answerEntryId: '' });
    expect((await stack.client.listUnansweredQuestions({ ownerId: bot.ownerId, chatbotId: bot.id })).questions).toEqual([]);
    const all = await stack.client.listUnansweredQuestions({ ownerId: bot.ownerId, chatbotId: bot.id, status: 'all' });
    expect(all.questions.map((q) => q.status).sort()).toEqual(['dismissed', 'resolved']);
    const onlyResolved = await stack.client.listUnansweredQuestions({ ownerId: bot.ownerId, chatbotId: bot.id, status: 'resolved' });
    expect(onlyResolved.questions.map((q) => q.id)).toEqual([questions[0].id]);
    expect((await stack.client.countUnansweredQuestions({ ownerId: bot.ownerId })).openByChatbot).toEqual({});

    const badStatus = await rpcError(stack.client.listUnansweredQuestions({ ownerId: bot.ownerId, chatbotId: bot.id, status: 'closed' }));
    expect([badStatus.code, badStatus.rawMessage]).toEqual([Code.InvalidArgument, 'Status must be open, resolved, dismissed or all']);
  });

  it('answers a group once when two answers arrive at once: one Q&A pair, the other told', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.makePro(bot.ownerId);
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Do you deliver on Sundays?', { sessionId: session('twice-1') }));
    const [group] = await groupsAfter(bot, 1);
    const answer = 'No, we deliver Monday to Saturday.';
    const outcomes = await Promise.allSettled(
      [1, 2].map(() => stack.client.answerUnansweredQuestion({ ownerId: bot.ownerId, chatbotId: bot.id, questionId: group.id, answer })),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!.reason as { code: Code; rawMessage: string };
    expect([refused.code, refused.rawMessage]).toEqual([Code.Aborted, 'This question has already been answered.']);
    const { chatbot } = await stack.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(chatbot!.knowledgeBase!.textEntries.filter((e) => e.content === answer)).toHaveLength(1);
  });

  it("is Pro only except the count, and another owner's chatbot or group is NOT_FOUND", async () => {
    const free = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.client.sendMessage(visitor(free.uniqueId, 'Do you sell gift cards?', { sessionId: session('free-1') }));
    const [group] = await groupsAfter(free, 1);
    expect((await stack.client.countUnansweredQuestions({ ownerId: free.ownerId })).openByChatbot).toEqual({ [free.id]: 1 });
    const refusals = await Promise.all(
      [
        stack.client.listUnansweredQuestions({ ownerId: free.ownerId, chatbotId: free.id }),
        stack.client.answerUnansweredQuestion({ ownerId: free.ownerId, chatbotId: free.id, questionId: group.id, answer: 'No.' }),
        stack.client.dismissUnansweredQuestion({ ownerId: free.ownerId, chatbotId: free.id, questionId: group.id }),
      ].map(rpcError),
    );
    for (const err of refusals)
      expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, 'Upgrade to Pro to see unanswered questions']);

    const other = await stack.newChatbot({ knowledge: KNOWLEDGE });
    await stack.makePro(other.ownerId);
    // Another owner's chatbot; then their own chatbot with the free owner's group id, an asked group and a malformed id.
    const notTheirs = await rpcError(stack.client.listUnansweredQuestions({ ownerId: other.ownerId, chatbotId: free.id }));
    expect([notTheirs.code, notTheirs.rawMessage]).toEqual([Code.NotFound, 'Chatbot not found']);
    const asked = await stack.parts.prisma.questionCluster.findFirstOrThrow({ where: { chatbotId: free.id, kind: 'asked' } });
    for (const questionId of [group.id, asked.id, 'nope']) {
      const errs = await Promise.all(
        [
          stack.client.answerUnansweredQuestion({ ownerId: other.ownerId, chatbotId: other.id, questionId, answer: 'No.' }),
          stack.client.dismissUnansweredQuestion({ ownerId: other.ownerId, chatbotId: other.id, questionId }),
        ].map(rpcError),
      );
      for (const err of errs) expect([err.code, err.rawMessage]).toEqual([Code.NotFound, 'Unanswered question not found']);
    }
    expect(await stack.parts.prisma.questionCluster.findUniqueOrThrow({ where: { id: group.id } })).toMatchObject({ status: 'open' });
    expect((await stack.client.countUnansweredQuestions({ ownerId: other.ownerId })).openByChatbot).toEqual({});
  });
});
