// Cases generated from the knowledge (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md):
// "Generate cases" asks the chatbot's model for up to 20 questions a visitor could ask, each with the
// facts of the knowledge a good answer holds. What the model reads is bounded (the ready entries'
// text, GENERATE_INPUT_CHARS in all), what it writes too (its output cap), and its reply is parsed
// strictly (anything but the JSON asked for is refused, nothing kept). Questions the set or the
// waiting proposals already have are dropped. The call is billed as an answer is (billed-call.ts).
// The proposals wait for the owner, who accepts (as proposed or edited) or discards each.
import { Code, ConnectError } from '@connectrpc/connect';
import { failedPrecondition, invalid, notFound, unavailable } from '@parley/common/rpc-errors.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { ProposedTestCase, TestCase } from '../generated/prisma/client.ts';
import { billedCall, exactObject, replyJson, type BilledCallDeps } from './billed-call.ts';
import { normalise, MAX_PHRASE_CHARS, type RawCheck } from './checks.ts';
import { ownedChatbot, parseTestCase, MAX_TEST_CASES, type QualityDeps } from './test-cases.ts';

export const MAX_GENERATED = 20;
/** The knowledge the model reads to write the questions, in all. */
export const GENERATE_INPUT_CHARS = 24_000;
/** What the model may write: 20 questions with their facts. */
export const GENERATE_MAX_TOKENS = 4000;
export const MAX_FACTS = 5;
/** Proposals waiting at once, per chatbot. */
export const MAX_PROPOSED = 100;
export const GENERATE_SCHEMA_NAME = 'parley_test_cases';

export const PROPOSAL_NOT_FOUND = 'Proposed case not found.';
export const NO_KNOWLEDGE = 'Add knowledge entries first: the cases are generated from them.';
export const GENERATE_COUNT = `Generate between 1 and ${MAX_GENERATED} cases.`;
export const GENERATE_NO_CREDIT = 'Not enough credit to generate cases.';
export const GENERATE_SPEND_LIMIT = "The chatbot's daily spend limit is reached: cases cannot be generated today.";
export const GENERATE_FAILED = 'The model could not generate cases. Please try again.';
export const GENERATE_MALFORMED = "The model's reply was not the cases asked for: nothing was added. Please try again.";
export const GENERATE_OFFLINE = 'No model is offered: cases cannot be generated.';
export const TOO_MANY_PROPOSED = `At most ${MAX_PROPOSED} proposed cases wait at once: accept or discard some first.`;

export interface GenerateDeps extends QualityDeps {
  judge: BilledCallDeps;
}

const INSTRUCTIONS = (count: number) => `You write test cases for a customer-support chatbot that answers from the knowledge below.
Write ${count} different questions a visitor could ask that the knowledge answers, and for each the
facts a good answer must state: short phrases copied from the knowledge (1 to ${MAX_FACTS} of them).
Reply with one JSON object and nothing else: {"cases":[{"question":"...","facts":["..."]}]},
at most ${count} cases.`;

export const generateSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['cases'],
  properties: {
    cases: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['question', 'facts'],
        properties: { question: { type: 'string' }, facts: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
};

export class GeneratedReplyError extends Error {}

/** The model's reply as cases, strictly: at most `count`, each a question within bounds with 1-5 facts. */
export function parseGenerated(text: string, count: number, maxChars: number): { question: string; facts: string[] }[] {
  const root = exactObject(replyJson(text), ['cases']);
  const list = root?.cases;
  if (!Array.isArray(list)) throw new GeneratedReplyError('not the cases asked for');
  if (list.length > count) throw new GeneratedReplyError(`${list.length} cases for ${count} asked`);
  return list.map((raw, i) => {
    const c = exactObject(raw, ['question', 'facts']);
    if (!c || typeof c.question !== 'string' || !Array.isArray(c.facts)) throw new GeneratedReplyError(`case ${i + 1} is malformed`);
    const question = c.question.replace(/\s+/gu, ' ').trim();
    if (!question || [...question].length > maxChars) throw new GeneratedReplyError(`case ${i + 1} has no question within bounds`);
    if (!c.facts.every((f): f is string => typeof f === 'string')) throw new GeneratedReplyError(`case ${i + 1}'s facts are not text`);
    const facts = c.facts.map((f) => f.replace(/\s+/gu, ' ').trim()).filter(Boolean);
    if (facts.length === 0 || facts.length > MAX_FACTS || facts.some((f) => [...f].length > MAX_PHRASE_CHARS))
      throw new GeneratedReplyError(`case ${i + 1} has no facts within bounds`);
    return { question, facts };
  });
}

/** The knowledge the model reads: each ready entry's title and text, GENERATE_INPUT_CHARS in all. */
export function knowledgeText(entries: { title: string; content: string; question: string; status: string }[]): string {
  let room = GENERATE_INPUT_CHARS;
  const parts: string[] = [];
  for (const e of entries) {
    if (e.status && e.status !== 'ready') continue;
    const body = `${e.title ? `# ${e.title}\n` : ''}${e.question ? `${e.question}\n` : ''}${e.content}`.trim();
    if (!body || room <= 0) continue;
    const cut = [...body].slice(0, room).join('');
    room -= cut.length + 2;
    parts.push(cut);
  }
  return parts.join('\n\n');
}

export async function generateTestCases(
  deps: GenerateDeps,
  input: { ownerId: string; chatbotId: string; count: number },
): Promise<{ proposed: ProposedTestCase[]; duplicates: number; cost: string }> {
  const bot = await ownedChatbot(deps, input);
  const count = input.count;
  if (!Number.isInteger(count) || count < 1 || count > MAX_GENERATED) throw invalid(GENERATE_COUNT);
  const waiting = await deps.db.proposedTestCase.count({ where: { chatbotId: bot.id } });
  if (waiting + count > MAX_PROPOSED) throw invalid(TOO_MANY_PROPOSED);
  let chatbot;
  try {
    chatbot = (await deps.chatbots.getChatbot({ ownerId: bot.ownerId, chatbotId: bot.id })).chatbot;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'chatbot GetChatbot failed');
    throw unavailable(GENERATE_FAILED);
  }
  const knowledge = knowledgeText(chatbot?.knowledgeBase?.textEntries ?? []);
  if (!chatbot || !knowledge) throw invalid(NO_KNOWLEDGE);
  let billed;
  try {
    billed = await billedCall(deps.judge, {
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      chatbotName: chatbot.name,
      dailySpendLimit: chatbot.limits?.dailySpendLimit || null,
      modelId: bot.modelId,
      messages: [
        {
          role: 'system',
          content: `${INSTRUCTIONS(count)}\n\n<generate_test_cases count="${count}">\n${knowledge}\n</generate_test_cases>`,
        },
        { role: 'user', content: `Write ${count} test cases.` },
      ],
      maxTokens: GENERATE_MAX_TOKENS,
      jsonSchema: { name: GENERATE_SCHEMA_NAME, schema: generateSchema },
    });
  } catch (err) {
    // The owner's to fix (credit, the chatbot's daily spend limit): a 4xx, not the service's failure.
    if (err instanceof ConnectError && err.code === Code.Unavailable) throw failedPrecondition(GENERATE_NO_CREDIT);
    if (err instanceof ConnectError && err.code === Code.ResourceExhausted) throw failedPrecondition(GENERATE_SPEND_LIMIT);
    deps.logger.warn({ err: (err as Error).message }, 'generating test cases failed');
    throw unavailable(GENERATE_FAILED);
  }
  if (!billed) throw failedPrecondition(GENERATE_OFFLINE);
  let generated;
  try {
    generated = parseGenerated(billed.answer.text, count, deps.maxMessageChars);
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, "the model's generated cases were malformed");
    throw unavailable(GENERATE_MALFORMED);
  }
  const [cases, proposals] = await Promise.all([
    deps.db.testCase.findMany({ where: { chatbotId: bot.id }, select: { question: true } }),
    deps.db.proposedTestCase.findMany({ where: { chatbotId: bot.id }, select: { question: true } }),
  ]);
  const seen = new Set([...cases, ...proposals].map((c) => normalise(c.question)));
  const fresh = generated.filter((g) => {
    const key = normalise(g.question);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // In the model's order: each a millisecond after the one before it.
  const at = Date.now();
  const proposed = await deps.db.proposedTestCase.createManyAndReturn({
    data: fresh.map((g, i) => ({
      chatbotId: bot.id,
      ownerId: bot.ownerId,
      question: g.question,
      facts: g.facts,
      createdAt: new Date(at - fresh.length + 1 + i),
    })),
  });
  proposed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return { proposed, duplicates: generated.length - fresh.length, cost: billed.cost.toFixed() };
}

export async function listProposedTestCases(deps: QualityDeps, input: { ownerId: string; chatbotId: string }): Promise<ProposedTestCase[]> {
  const bot = await ownedChatbot(deps, input);
  return deps.db.proposedTestCase.findMany({ where: { chatbotId: bot.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

async function ownedProposal(deps: QualityDeps, chatbotId: string, proposalId: string): Promise<ProposedTestCase> {
  const id = proposalId.trim().toLowerCase();
  const found = isUuid(id) ? await deps.db.proposedTestCase.findFirst({ where: { id, chatbotId } }) : null;
  if (!found) throw notFound(PROPOSAL_NOT_FOUND);
  return found;
}

/** The proposal as a case of the set (as proposed, or with the owner's question and checks); the proposal goes. */
export async function acceptProposedTestCase(
  deps: QualityDeps,
  input: { ownerId: string; chatbotId: string; proposalId: string; question: string; checks: RawCheck[] },
): Promise<TestCase> {
  const bot = await ownedChatbot(deps, input);
  const proposal = await ownedProposal(deps, bot.id, input.proposalId);
  const facts = (proposal.facts as unknown as string[]) ?? [];
  const checks: RawCheck[] = input.checks.length ? input.checks : facts.map((f) => ({ kind: 'contains', phrases: [f] }));
  const parsed = parseTestCase(
    { question: input.question.trim() || proposal.question, earlierTurns: [], checks, expectedAnswer: '' },
    deps.maxMessageChars,
  );
  const total = await deps.db.testCase.count({ where: { chatbotId: bot.id } });
  if (total + 1 > MAX_TEST_CASES) throw failedPrecondition(`A chatbot has at most ${MAX_TEST_CASES} test cases.`);
  // One transaction: of two accepts at once, one adds the case.
  return deps.db.$transaction(async (tx) => {
    const { count } = await tx.proposedTestCase.deleteMany({ where: { id: proposal.id } });
    if (count === 0) throw notFound(PROPOSAL_NOT_FOUND);
    return tx.testCase.create({
      data: { ...parsed, checks: parsed.checks as object[], chatbotId: bot.id, ownerId: bot.ownerId, source: 'generated' },
    });
  });
}

export async function discardProposedTestCase(deps: QualityDeps, input: { ownerId: string; chatbotId: string; proposalId: string }) {
  const bot = await ownedChatbot(deps, input);
  const proposal = await ownedProposal(deps, bot.id, input.proposalId);
  await deps.db.proposedTestCase.deleteMany({ where: { id: proposal.id } });
}
