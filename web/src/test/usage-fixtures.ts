import type { Handler } from './mock-link';

// Usage answers as the gateway gives them (with __typename, as Apollo asks for it).

export function usageRequest(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'UsageRequest' as const,
    requestId: 'r1',
    timestamp: '2025-03-04T10:00:00.000Z',
    chatbot: { __typename: 'UsageChatbot' as const, _id: 'c1', name: 'support bot' } as {
      __typename: 'UsageChatbot';
      _id: string;
      name: string;
    } | null,
    model: { __typename: 'UsageModel' as const, displayName: 'GPT-4o mini' } as {
      __typename: 'UsageModel';
      displayName: string;
    } | null,
    promptTokens: 1200,
    completionTokens: 300,
    totalTokens: 1500,
    totalCost: '0.000360',
    ownKey: false,
    ...overrides,
  };
}

type UsageRequest = ReturnType<typeof usageRequest>;

export function usageReport(
  requests: UsageRequest[] = [],
  overrides: {
    totals?: Record<string, unknown>;
    dailyUsage?: Array<{ date: string; totalCost: string; totalTokens: number; requests: number }>;
    usageByChatbot?: Array<{ chatbotId: string; name: string | null; totalCost: string; requests: number }>;
    currentCreditBalance?: string;
    recentRequestsLimit?: number;
  } = {},
) {
  return {
    __typename: 'UsageReport' as const,
    subscription: 'free' as const,
    currentCreditBalance: overrides.currentCreditBalance ?? '0.5',
    overallUsage: {
      __typename: 'UsageTotals' as const,
      totalCost: '0',
      totalPromptCost: '0',
      totalCompletionCost: '0',
      totalTokens: 0,
      totalPromptTokens: 0,
      totalCompletionTokens: 0,
      totalRequests: requests.length,
      ...overrides.totals,
    },
    recentRequests: requests,
    recentRequestsLimit: overrides.recentRequestsLimit ?? 1000,
    dailyUsage: (overrides.dailyUsage ?? []).map((day) => ({ __typename: 'UsageDay' as const, ...day })),
    usageByChatbot: (overrides.usageByChatbot ?? []).map((c) => ({ __typename: 'ChatbotUsage' as const, ...c })),
  };
}

/** The dashboard's month: balance, spend and each chatbot's cost. */
export function dashboardUsage(totalCost: string, currentCreditBalance: string, byChatbot: Array<[string, string]> = []) {
  return {
    __typename: 'UsageReport' as const,
    currentCreditBalance,
    overallUsage: { __typename: 'UsageTotals' as const, totalCost },
    usageByChatbot: byChatbot.map(([chatbotId, cost]) => ({
      __typename: 'ChatbotUsage' as const,
      chatbotId,
      totalCost: cost,
    })),
  };
}

export const billingOptions = {
  __typename: 'BillingOptions' as const,
  testMode: true,
  topUpAmount: '5',
};

/**
 * Answers for the billing queries the dashboard and the chatbot detail page make, for tests about
 * something else that pass through those pages.
 */
export const billingAnswers: Record<string, Handler> = {
  DashboardUsage: () => ({ data: { usage: dashboardUsage('0', '0.01') } }),
  BillingOptions: () => ({ data: { billingOptions } }),
  ChatbotMonthlyCost: () => ({
    data: { usage: { __typename: 'UsageReport', overallUsage: { __typename: 'UsageTotals', totalCost: '0' } } },
  }),
};
