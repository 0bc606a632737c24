// The Tests section's judge, generated cases and regression mail as its forms hold them
// (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md): the rubric and a proposal's
// facts one a line; the bounds the chat service keeps, checked before asking.

export const MAX_CRITERIA = 8;
export const MAX_CRITERION_CHARS = 300;
export const MAX_GENERATED = 20;
export const MAX_FACTS = 5;

/** Non-blank lines, trimmed. */
export const linesOf = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The rubric's lines, or what is wrong with them. */
export function parseRubricText(text: string): { rubric: string[] } | { error: string } {
  const rubric = linesOf(text);
  if (rubric.length > MAX_CRITERIA) return { error: `A rubric has at most ${MAX_CRITERIA} criteria.` };
  if (rubric.some((c) => [...c].length > MAX_CRITERION_CHARS))
    return { error: `A criterion has at most ${MAX_CRITERION_CHARS} characters.` };
  return { rubric };
}

/** How many cases to generate, or what is wrong with the number. */
export function parseCount(text: string): { count: number } | { error: string } {
  const count = Number(text.trim());
  if (!Number.isInteger(count) || count < 1 || count > MAX_GENERATED) return { error: `Generate between 1 and ${MAX_GENERATED} cases.` };
  return { count };
}

/** A proposal as the owner edited it: its question and one "contains" check per fact, or what is wrong. */
export function editedProposal(
  question: string,
  factsText: string,
): { question: string; checks: { kind: string; phrases: string[] }[] } | { error: string } {
  const q = question.trim();
  if (!q) return { error: 'A test case needs a question.' };
  const facts = linesOf(factsText);
  if (facts.length === 0) return { error: 'Keep at least one fact the answer must state.' };
  if (facts.length > MAX_FACTS) return { error: `At most ${MAX_FACTS} facts.` };
  return { question: q, checks: facts.map((f) => ({ kind: 'contains', phrases: [f] })) };
}
