// A chatbot's test cases (docs/adr/0050-quality-loop.md): written by hand, added from an answer in
// History or the inbox ("Add to tests", "Improve answer"), from an unanswered question in Analytics,
// or imported from a file the gateway read (CSV or JSONL), all or none. Every case is the owner's: another owner's chatbot or case is NOT_FOUND.
import type { Client } from '@connectrpc/connect';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { isUuid } from '@parley/common/ids.ts';
import type { Logger } from '@parley/common/logger.ts';
import { failedPrecondition, invalid, notFound, unavailable } from '@parley/common/rpc-errors.ts';
import { CHATBOT_NOT_FOUND } from '@parley/common/not-found.ts';
import { ConnectError } from '@connectrpc/connect';
import type { PrismaClient, TestCase } from '../generated/prisma/client.ts';
import { parseChecks, type Check, type RawCheck } from './checks.ts';

export const TEST_CASE_NOT_FOUND = 'Test case not found.';
export const QUALITY_UNAVAILABLE = 'Could not load the tests. Please try again.';
export const MAX_TEST_CASES = 500;
export const MAX_EARLIER_TURNS = 20;
export const SOURCES = ['manual', 'history', 'inbox', 'analytics', 'import', 'improve', 'generated'] as const;

export interface QualityDeps {
  db: PrismaClient;
  chatbots: Client<typeof ChatbotService>;
  logger: Logger;
  /** The public chat's bound on a message, which a case's question and turns keep too. */
  maxMessageChars: number;
}

export interface OwnedChatbot {
  id: string;
  uniqueId: string;
  ownerId: string;
  modelId: string;
}

/** The owner's chatbot, or NOT_FOUND; UNAVAILABLE when the chatbot service cannot say. */
export async function ownedChatbot(deps: QualityDeps, input: { ownerId: string; chatbotId: string }): Promise<OwnedChatbot> {
  const ownerId = input.ownerId.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  if (!isUuid(input.chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
  const chatbotId = input.chatbotId.trim().toLowerCase();
  let list;
  try {
    list = await deps.chatbots.listChatbots({ ownerId, includeKnowledgeBase: false });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'chatbot ListChatbots failed');
    throw unavailable(QUALITY_UNAVAILABLE);
  }
  const bot = list.chatbots.find((c) => c.id === chatbotId);
  if (!bot) throw notFound(CHATBOT_NOT_FOUND);
  return { id: bot.id, uniqueId: bot.uniqueId, ownerId, modelId: bot.model?.modelId ?? '' };
}

export interface RawTestCase {
  question: string;
  earlierTurns: { role: string; content: string }[];
  checks: RawCheck[];
  expectedAnswer: string;
}

export interface ParsedTestCase {
  question: string;
  earlierTurns: { role: 'user' | 'assistant'; content: string }[];
  checks: Check[];
  expectedAnswer: string;
}

/** A case's fields validated, or INVALID_ARGUMENT naming the first at fault. */
export function parseTestCase(raw: RawTestCase, maxChars: number): ParsedTestCase {
  const question = raw.question.trim();
  if (!question) throw invalid('A test case needs a question.');
  if (question.length > maxChars) throw invalid(`The question is too long (maximum ${maxChars} characters).`);
  if (raw.earlierTurns.length > MAX_EARLIER_TURNS) throw invalid(`At most ${MAX_EARLIER_TURNS} earlier turns.`);
  const earlierTurns = raw.earlierTurns.map((t, i): { role: 'user' | 'assistant'; content: string } => {
    const role = t.role;
    if (role !== 'user' && role !== 'assistant') throw invalid(`Earlier turn ${i + 1}: the role is "user" or "assistant".`);
    const content = t.content.trim();
    if (!content) throw invalid(`Earlier turn ${i + 1} is empty.`);
    if (content.length > maxChars) throw invalid(`Earlier turn ${i + 1} is too long (maximum ${maxChars} characters).`);
    return { role, content };
  });
  const expectedAnswer = raw.expectedAnswer.trim();
  if (expectedAnswer.length > maxChars) throw invalid(`The expected answer is too long (maximum ${maxChars} characters).`);
  return { question, earlierTurns, checks: parseChecks(raw.checks), expectedAnswer };
}

export const casesOf = (db: PrismaClient, chatbotId: string) =>
  db.testCase.findMany({ where: { chatbotId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

export async function listTestCases(deps: QualityDeps, input: { ownerId: string; chatbotId: string }): Promise<TestCase[]> {
  const bot = await ownedChatbot(deps, input);
  return casesOf(deps.db, bot.id);
}

async function roomFor(deps: QualityDeps, chatbotId: string, adding: number) {
  const count = await deps.db.testCase.count({ where: { chatbotId } });
  if (count + adding > MAX_TEST_CASES) throw failedPrecondition(`A chatbot has at most ${MAX_TEST_CASES} test cases.`);
}

export async function saveTestCase(
  deps: QualityDeps,
  input: { ownerId: string; chatbotId: string; caseId: string; source: string } & RawTestCase,
): Promise<TestCase> {
  const bot = await ownedChatbot(deps, input);
  const parsed = parseTestCase(input, deps.maxMessageChars);
  const data = { ...parsed, checks: parsed.checks as object[] };
  if (input.caseId.trim()) {
    const id = input.caseId.trim().toLowerCase();
    if (!isUuid(id)) throw notFound(TEST_CASE_NOT_FOUND);
    const { count } = await deps.db.testCase.updateMany({ where: { id, chatbotId: bot.id }, data });
    if (count === 0) throw notFound(TEST_CASE_NOT_FOUND);
    return deps.db.testCase.findUniqueOrThrow({ where: { id } });
  }
  const source = (SOURCES as readonly string[]).includes(input.source) ? input.source : 'manual';
  await roomFor(deps, bot.id, 1);
  return deps.db.testCase.create({ data: { ...data, chatbotId: bot.id, ownerId: bot.ownerId, source } });
}

export async function deleteTestCase(deps: QualityDeps, input: { ownerId: string; chatbotId: string; caseId: string }): Promise<void> {
  const bot = await ownedChatbot(deps, input);
  const id = input.caseId.trim().toLowerCase();
  if (!isUuid(id)) throw notFound(TEST_CASE_NOT_FOUND);
  const { count } = await deps.db.testCase.deleteMany({ where: { id, chatbotId: bot.id } });
  if (count === 0) throw notFound(TEST_CASE_NOT_FOUND);
}

/** Every case of the file, or INVALID_ARGUMENT listing each bad line ("Line 3: …"); none is added then. */
export async function importTestCases(
  deps: QualityDeps,
  input: { ownerId: string; chatbotId: string; cases: (RawTestCase & { line: number })[] },
): Promise<number> {
  const bot = await ownedChatbot(deps, input);
  if (input.cases.length === 0) throw invalid('The file has no test case.');
  const errors: string[] = [];
  const parsed: ParsedTestCase[] = [];
  for (const c of input.cases) {
    try {
      parsed.push(parseTestCase(c, deps.maxMessageChars));
    } catch (err) {
      if (!(err instanceof ConnectError)) throw err;
      errors.push(`Line ${c.line}: ${err.rawMessage}`);
    }
  }
  if (errors.length) throw invalid(errors.slice(0, 20).join('\n') + (errors.length > 20 ? `\n… and ${errors.length - 20} more` : ''));
  await roomFor(deps, bot.id, parsed.length);
  // The file's order is the list's: each case a millisecond after the one before it, the last now.
  const at = Date.now();
  await deps.db.testCase.createMany({
    data: parsed.map((p, i) => ({
      ...p,
      checks: p.checks as object[],
      chatbotId: bot.id,
      ownerId: bot.ownerId,
      source: 'import',
      createdAt: new Date(at - parsed.length + 1 + i),
    })),
  });
  return parsed.length;
}
