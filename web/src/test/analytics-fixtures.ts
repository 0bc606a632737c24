// Analytics answers as the gateway gives them (with __typename, as Apollo asks for it).

export function sampleAnalytics(
  overrides: {
    full?: boolean;
    startDate?: string;
    endDate?: string;
    totals?: Record<string, unknown>;
    topQuestions?: { question: string; count: number }[];
    questionsRedacted?: boolean;
  } = {},
) {
  const full = overrides.full ?? true;
  return {
    __typename: 'Analytics' as const,
    startDate: overrides.startDate ?? '2025-06-01',
    endDate: overrides.endDate ?? '2025-06-03',
    full,
    totals: {
      __typename: 'AnalyticsTotals' as const,
      conversations: 12,
      messages: 1234,
      uniqueVisitors: 9,
      answered: 900,
      answeredShare: 0.7293,
      thumbsUp: 5,
      thumbsDown: 2,
      medianAnswerMs: 1840,
      ...overrides.totals,
    },
    days: full
      ? [
          { __typename: 'AnalyticsDay' as const, date: '2025-06-01', conversations: 4, messages: 400, uniqueVisitors: 3 },
          { __typename: 'AnalyticsDay' as const, date: '2025-06-02', conversations: 0, messages: 0, uniqueVisitors: 0 },
          { __typename: 'AnalyticsDay' as const, date: '2025-06-03', conversations: 8, messages: 834, uniqueVisitors: 6 },
        ]
      : [],
    busiestHours: full ? Array.from({ length: 24 }, (_, hour) => (hour === 14 ? 300 : hour)) : [],
    topQuestions: !full
      ? []
      : overrides.topQuestions
        ? overrides.topQuestions.map((q) => ({ __typename: 'AskedQuestion' as const, ...q }))
        : [
            { __typename: 'AskedQuestion' as const, question: 'When do you open?', count: 41 },
            { __typename: 'AskedQuestion' as const, question: 'Do you ship abroad?', count: 7 },
          ],
    questionsRedacted: overrides.questionsRedacted ?? false,
  };
}

export function sampleUnanswered(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'UnansweredQuestion' as const,
    id: 'q1',
    question: 'Do you deliver on Sundays?',
    count: 6,
    examples: ['Sunday delivery?', 'Can I get it delivered on a sunday'],
    lastSeen: '2025-06-03T09:00:00.000Z',
    status: 'open',
    answerEntryId: null as string | null,
    reason: 'missing_knowledge' as string | null,
    ...overrides,
  };
}
