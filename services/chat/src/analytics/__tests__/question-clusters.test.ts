// Grouping visitors' questions against a real PostgreSQL: paraphrases of a fixed set end in one
// group and different questions in others, per kind and per chatbot; a group's count, examples,
// last seen and status follow the rules; identical questions arriving at once make one group.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import {
  addQuestion,
  addQuestionBatch,
  MAX_EXAMPLES,
  normalisedText,
  QUESTION_SIMILARITY,
  questionLexemes,
  withExample,
  type QuestionKind,
} from '../question-clusters.ts';
import { testDb } from './test-db.ts';

let db: PrismaClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await testDb());
});
afterAll(async () => close?.());

const at = new Date('2026-11-20T10:00:00Z');

async function ask(chatbotId: string, questions: string[], opts: { kind?: QuestionKind; language?: string } = {}) {
  const ids: string[] = [];
  for (const question of questions) {
    const added = await addQuestion(db, {
      chatbotId,
      ownerId: 'owner-1',
      kind: opts.kind ?? 'asked',
      question,
      language: opts.language ?? 'english',
      at,
    });
    ids.push(added!.clusterId);
  }
  return ids;
}

describe('grouping', () => {
  it('groups paraphrases and separates different questions', async () => {
    const chatbotId = randomUUID();
    const hours = await ask(chatbotId, ['What are your opening hours?', 'when are you open', 'opening hours?']);
    const shipping = await ask(chatbotId, ['How much does shipping cost?', 'shipping price']);
    const others = await ask(chatbotId, ['Do you offer refunds?', 'Can I pay with PayPal?', 'How do I reset my password?']);
    expect(new Set(hours).size).toBe(1);
    expect(new Set(shipping).size).toBe(1);
    expect(new Set([hours[0], shipping[0], ...others]).size).toBe(5);

    const groups = await db.questionCluster.findMany({ where: { chatbotId }, orderBy: { count: 'desc' } });
    expect(groups[0]).toMatchObject({
      question: 'What are your opening hours?',
      count: 3,
      examples: ['opening hours?', 'when are you open', 'What are your opening hours?'],
      status: 'open',
    });
    expect(groups[1]).toMatchObject({ question: 'How much does shipping cost?', count: 2 });
  });

  it('joins in any order of arrival', async () => {
    const chatbotId = randomUUID();
    const ids = await ask(chatbotId, ['when are you open', 'opening hours?', 'What are your opening hours?']);
    expect(new Set(ids).size).toBe(1);
  });

  it('keeps kinds and chatbots apart', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const [asked] = await ask(a, ['opening hours?']);
    const [unanswered] = await ask(a, ['opening hours?'], { kind: 'unanswered' });
    const [otherBot] = await ask(b, ['opening hours?']);
    expect(new Set([asked, unanswered, otherBot]).size).toBe(3);
  });

  it('groups French questions under French stemming and Chinese ones by bigrams', async () => {
    const chatbotId = randomUUID();
    const fr = await ask(chatbotId, ["Quels sont vos horaires d'ouverture ?", 'horaires ouverture'], { language: 'french' });
    const zh = await ask(chatbotId, ['你们的营业时间是什么？', '营业时间'], { language: 'chinese' });
    expect(new Set(fr).size).toBe(1);
    expect(new Set(zh).size).toBe(1);
    expect(fr[0]).not.toBe(zh[0]);
  });

  it('groups questions of stop words only by their normalised text, and counts no punctuation-only question', async () => {
    const chatbotId = randomUUID();
    const ids = await ask(chatbotId, ['What is it?', 'what is it', 'Who are you?']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(await questionLexemes(db, 'What is it?', 'english')).toEqual(['what is it']);
    expect(await addQuestion(db, { chatbotId, ownerId: 'o', kind: 'asked', question: ' ?!… ', language: 'english', at })).toBeNull();
  });

  it('counts asked questions per day', async () => {
    const chatbotId = randomUUID();
    const base = { chatbotId, ownerId: 'o', kind: 'asked' as const, language: 'english' };
    const first = await addQuestion(db, { ...base, question: 'opening hours?', at: new Date('2026-11-20T23:59:00Z') });
    await addQuestion(db, { ...base, question: 'opening hours', at: new Date('2026-11-20T00:00:00Z') });
    await addQuestion(db, { ...base, question: 'when are you open?', at: new Date('2026-11-21T00:00:00Z') });
    const days = await db.questionClusterDay.findMany({ where: { clusterId: first!.clusterId }, orderBy: { day: 'asc' } });
    expect(days.map((d) => [d.day.toISOString().slice(0, 10), d.count])).toEqual([
      ['2026-11-20', 2],
      ['2026-11-21', 1],
    ]);
    const group = await db.questionCluster.findUniqueOrThrow({ where: { id: first!.clusterId } });
    expect(group.lastSeen.toISOString()).toBe('2026-11-21T00:00:00.000Z');
    // Unanswered groups keep no days.
    const unanswered = await addQuestion(db, { ...base, kind: 'unanswered', question: 'opening hours?', at });
    expect(await db.questionClusterDay.count({ where: { clusterId: unanswered!.clusterId } })).toBe(0);
  });
});

describe('a group over time', () => {
  it('keeps at most five distinct examples, newest first', async () => {
    const chatbotId = randomUUID();
    const wordings = [
      'opening hours?',
      'Opening hours',
      'opening hours!',
      'hours of opening',
      'open hours',
      'your opening hours',
      'opening hours please',
    ];
    const ids = await ask(chatbotId, wordings);
    expect(new Set(ids).size).toBe(1);
    const group = await db.questionCluster.findUniqueOrThrow({ where: { id: ids[0] } });
    expect(group.count).toBe(wordings.length);
    expect(group.examples).toEqual(['opening hours please', 'your opening hours', 'open hours', 'hours of opening', 'opening hours!']);
    expect(withExample(['a', 'B', 'c'], 'b')).toEqual(['b', 'a', 'c']);
    expect(withExample(['1', '2', '3', '4', '5'], '6')).toHaveLength(MAX_EXAMPLES);
    expect(normalisedText('  Hello,   World?! ')).toBe('hello world');
  });

  it('reopens a resolved unanswered group that is asked again, keeps a dismissed one dismissed', async () => {
    const chatbotId = randomUUID();
    const [resolved] = await ask(chatbotId, ['opening hours?'], { kind: 'unanswered' });
    const [dismissed] = await ask(chatbotId, ['shipping price'], { kind: 'unanswered' });
    await db.questionCluster.update({ where: { id: resolved }, data: { status: 'resolved' } });
    await db.questionCluster.update({ where: { id: dismissed }, data: { status: 'dismissed' } });
    await ask(chatbotId, ['when are you open', 'How much does shipping cost?'], { kind: 'unanswered' });
    expect(await db.questionCluster.findUniqueOrThrow({ where: { id: resolved } })).toMatchObject({ status: 'open', count: 2 });
    expect(await db.questionCluster.findUniqueOrThrow({ where: { id: dismissed } })).toMatchObject({ status: 'dismissed', count: 2 });
  });

  it('makes one group of identical questions arriving at once', async () => {
    const chatbotId = randomUUID();
    const added = await Promise.all(
      Array.from({ length: 8 }, () =>
        addQuestion(db, { chatbotId, ownerId: 'o', kind: 'asked', question: 'Do you deliver on Sundays?', language: 'english', at }),
      ),
    );
    expect(new Set(added.map((a) => a!.clusterId)).size).toBe(1);
    const groups = await db.questionCluster.findMany({ where: { chatbotId } });
    expect(groups).toHaveLength(1);
    expect(groups[0].count).toBe(8);
    expect(groups[0].examples).toEqual(['Do you deliver on Sundays?']);
  });

  it('counts a batch as it counts its questions one by one, in three statements', async () => {
    const [oneByOne, batched] = [randomUUID(), randomUUID()];
    const day = (d: number, h = 10) => new Date(Date.UTC(2026, 10, 20 + d, h));
    // Wordings with different lexemes that join each other (a set joining the group an earlier set
    // of the same batch started), repeats, two days, both kinds, one wording with nothing to group by.
    const items = [
      { question: 'opening hours please', at: day(0), kinds: ['asked'] },
      { question: 'opening hours?', at: day(0, 11), kinds: ['asked', 'unanswered'] },
      { question: 'when are you open', at: day(1), kinds: ['asked'] },
      { question: 'shipping price', at: day(0, 12), kinds: ['asked', 'unanswered'] },
      { question: '?!', at: day(0), kinds: ['asked'] },
      { question: 'How much does shipping cost?', at: day(1, 9), kinds: ['asked'] },
      { question: 'Opening hours', at: day(1, 8), kinds: ['unanswered'] },
      { question: 'refund policy', at: day(1, 7), kinds: ['asked'] },
    ] as const;
    // An unanswered group resolved before the batch, which the batch reopens.
    for (const chatbotId of [oneByOne, batched]) {
      const before = await addQuestion(db, {
        chatbotId,
        ownerId: 'o',
        kind: 'unanswered',
        question: 'shipping price?',
        language: 'english',
        at: day(-1),
      });
      await db.questionCluster.update({ where: { id: before!.clusterId }, data: { status: 'resolved' } });
    }
    const single: (string | null)[][] = [];
    for (const item of items) {
      const added = [];
      for (const kind of item.kinds)
        added.push(
          await addQuestion(db, { chatbotId: oneByOne, ownerId: 'o', kind, question: item.question, language: 'english', at: item.at }),
        );
      single.push(added.map((a) => a?.clusterId ?? null));
    }
    const statements: string[] = [];
    const counted = db.$extends({
      query: {
        $allOperations: ({ args, query, operation }) => {
          statements.push(operation);
          return query(args);
        },
      },
    });
    const batch = await counted.$transaction((tx) =>
      addQuestionBatch(
        tx as never,
        items.map((item) => ({ chatbotId: batched, ownerId: 'o', language: 'english', ...item })),
      ),
    );
    expect(statements.filter((op) => op.startsWith('$queryRaw') || op.startsWith('$executeRaw'))).toHaveLength(3);

    // The same partition into groups, the same group started first.
    const shape = (ids: (string | null)[][]) => {
      const names = new Map<string, number>();
      return ids.map((row) => row.map((id) => (id === null ? null : (names.get(id) ?? names.set(id, names.size).get(id)))));
    };
    expect(shape(batch.map((row) => row.map((a) => a?.clusterId ?? null)))).toEqual(shape(single));
    const state = async (chatbotId: string) =>
      (
        await db.questionCluster.findMany({
          where: { chatbotId },
          include: { days: { orderBy: { day: 'asc' } } },
          orderBy: [{ kind: 'asc' }, { question: 'asc' }],
        })
      ).map((c) => ({
        kind: c.kind,
        question: c.question,
        lexemes: c.lexemes,
        count: c.count,
        examples: c.examples,
        lastSeen: c.lastSeen,
        status: c.status,
        days: c.days.map((d) => [d.day.toISOString().slice(0, 10), d.count]),
      }));
    const expected = await state(oneByOne);
    expect(await state(batched)).toEqual(expected);
    expect(expected.find((g) => g.question === 'shipping price?')).toMatchObject({ status: 'open', count: 2 });
    expect(expected.find((g) => g.kind === 'asked' && g.question === 'opening hours please')).toMatchObject({ count: 3 });
  });

  it('runs inside a caller’s transaction', async () => {
    const chatbotId = randomUUID();
    await expect(
      db.$transaction(async (tx) => {
        await addQuestion(tx, { chatbotId, ownerId: 'o', kind: 'unanswered', question: 'refund policy', language: 'english', at });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await db.questionCluster.count({ where: { chatbotId } })).toBe(0);
  });
});

it('exports one similarity threshold', () => {
  expect(QUESTION_SIMILARITY).toBe(0.5);
});
