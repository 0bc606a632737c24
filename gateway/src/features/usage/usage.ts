// The owner's usage report as the product shows it: billing's report (totals computed by the
// database, the newest records, days and chatbots) with each chatbot's CURRENT name from the chatbot
// service; a chatbot that no longer exists shows as null (the page and the CSV print N/A). REST and
// GraphQL share this view; REST then turns its exact decimal strings into JSON numbers.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { GetUsageReportResponse, UsageRecord } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { Code, ConnectError, invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { isoDate } from '../../http/dates.ts';
import { subscriptionOf, type Subscription } from '../../access/users.ts';

export const BAD_DATES_MESSAGE = 'startDate and endDate must be ISO 8601 dates';
export const REVERSED_RANGE_MESSAGE = 'startDate must not be after endDate';

export interface UsageQuery {
  startDate: Date;
  endDate: Date;
  /** Only this chatbot's usage; undefined for all. */
  chatbotId?: string;
}

export interface UsageTotalsView {
  totalCost: string;
  totalPromptCost: string;
  totalCompletionCost: string;
  totalTokens: number;
  totalPromptTokens: number;
  totalCompletionTokens: number;
  totalRequests: number;
}

export interface UsageRequestView {
  requestId: string;
  timestamp: string;
  /** `_id` as docs/product.md (Usage) names it, in REST and GraphQL alike. */
  chatbot: { _id: string; name: string } | null;
  model: { displayName: string } | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  totalCost: string;
  /** The developer API's key the answer was asked through; null for the public chat. */
  apiKeyId: string | null;
  /** Given on the workspace's own provider key ("your key"): totalCost is the own-key fee (docs/adr/0043-own-provider-keys.md). */
  ownKey: boolean;
}

export interface UsageDayView {
  date: string;
  totalCost: string;
  totalTokens: number;
  requests: number;
}

export interface ChatbotUsageView {
  chatbotId: string;
  name: string | null;
  totalCost: string;
  requests: number;
}

/** Money as billing's exact decimal strings; REST converts them at the edge. */
export interface UsageReportView {
  subscription: Subscription;
  currentCreditBalance: string;
  overallUsage: UsageTotalsView;
  recentRequests: UsageRequestView[];
  recentRequestsLimit: number;
  dailyUsage: UsageDayView[];
  usageByChatbot: ChatbotUsageView[];
}

// A calendar date, optionally with a time and an offset (RFC 3339 / ISO 8601 extended format).
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO 8601 date or date-time. A time without an offset is read as UTC (the server's clock zone
 * must not change the answer). A bare date stands for the start of that UTC day, or for its end when
 * it closes a range, so "2025-01-01".."2025-01-31" covers the whole of January 31.
 */
export function parseIsoDate(raw: unknown, edge: 'start' | 'end'): Date {
  if (typeof raw !== 'string') throw invalid(BAD_DATES_MESSAGE);
  const m = ISO_DATE.exec(raw.trim());
  if (!m) throw invalid(BAD_DATES_MESSAGE);
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  // Rejects 2025-02-30 and 25:00, which Date would silently roll over.
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day)
    throw invalid(BAD_DATES_MESSAGE);
  if (h === undefined) {
    return edge === 'start' ? calendar : new Date(calendar.getTime() + 24 * 3600 * 1000 - 1);
  }
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) throw invalid(BAD_DATES_MESSAGE);
  const ms = frac ? Number(frac.padEnd(3, '0').slice(0, 3)) : 0;
  let at = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s ?? 0), ms);
  if (offset && offset.toUpperCase() !== 'Z') {
    const o = /^([+-])(\d{2}):?(\d{2})$/.exec(offset)!;
    if (Number(o[2]) > 23 || Number(o[3]) > 59) throw invalid(BAD_DATES_MESSAGE);
    const minutes = (Number(o[2]) * 60 + Number(o[3])) * (o[1] === '-' ? -1 : 1);
    at -= minutes * 60_000;
  }
  return new Date(at);
}

/** The range of a usage request from its raw inputs; billing checks the range's length itself. */
export function parseUsageQuery(input: { startDate: unknown; endDate: unknown; chatbotId?: unknown }): UsageQuery {
  const startDate = parseIsoDate(input.startDate, 'start');
  const endDate = parseIsoDate(input.endDate, 'end');
  if (startDate.getTime() > endDate.getTime()) throw invalid(REVERSED_RANGE_MESSAGE);
  const { chatbotId } = input;
  if (chatbotId !== undefined && chatbotId !== null && typeof chatbotId !== 'string') throw invalid('chatbotId must be a string');
  return { startDate, endDate, chatbotId: chatbotId || undefined };
}

/** The owner's usage in the range: one billing call and one chatbot list, side by side. */
export async function loadUsageReport(clients: Clients, ownerId: string, query: UsageQuery): Promise<UsageReportView> {
  const [report, { chatbots }] = await Promise.all([
    clients.billing.getUsageReport({
      ownerId,
      startTime: timestampFromDate(query.startDate),
      endTime: timestampFromDate(query.endDate),
      chatbotId: query.chatbotId ?? '',
    }),
    clients.chatbot.listChatbots({ ownerId, includeKnowledgeBase: false }),
  ]);
  const names = new Map(chatbots.map((c) => [c.id, c.name]));
  return usageReportView(report, names);
}

/** Maps billing's report, naming each chatbot by its current name (null once it is deleted). */
export function usageReportView(report: GetUsageReportResponse, currentNames: ReadonlyMap<string, string>): UsageReportView {
  const { account, totals } = report;
  // A contract violation, not a user error: it surfaces as a logged 500.
  if (!account || !totals) throw new ConnectError('billing returned an incomplete usage report', Code.Internal);
  const nameOf = (chatbotId: string) => currentNames.get(chatbotId) ?? null;
  return {
    subscription: subscriptionOf(account),
    currentCreditBalance: account.creditBalance,
    overallUsage: {
      totalCost: totals.totalCost,
      totalPromptCost: totals.totalPromptCost,
      totalCompletionCost: totals.totalCompletionCost,
      totalTokens: count(totals.totalTokens),
      totalPromptTokens: count(totals.totalPromptTokens),
      totalCompletionTokens: count(totals.totalCompletionTokens),
      totalRequests: count(totals.requestCount),
    },
    recentRequests: report.records.map((r) => usageRequestView(r, nameOf(r.chatbotId))),
    recentRequestsLimit: report.limit,
    dailyUsage: report.days.map((d) => ({
      date: d.date,
      totalCost: d.totalCost,
      totalTokens: count(d.totalTokens),
      requests: count(d.requestCount),
    })),
    usageByChatbot: report.chatbots.map((c) => ({
      chatbotId: c.chatbotId,
      name: nameOf(c.chatbotId),
      totalCost: c.totalCost,
      requests: count(c.requestCount),
    })),
  };
}

/** A count from billing (int64) as a JSON number: exact up to 2^53, far beyond any real usage. */
const count = (n: bigint): number => Number(n);

function usageRequestView(record: UsageRecord, currentName: string | null): UsageRequestView {
  const displayName = record.modelDisplayName || record.model;
  return {
    requestId: record.requestId,
    timestamp: isoDate(record.occurredAt) ?? new Date(0).toISOString(),
    chatbot: currentName === null ? null : { _id: record.chatbotId, name: currentName },
    model: displayName ? { displayName } : null,
    promptTokens: count(record.promptTokens),
    completionTokens: count(record.completionTokens),
    totalTokens: count(record.totalTokens),
    totalCost: record.totalCost,
    apiKeyId: record.apiKeyId || null,
    ownKey: record.ownKey,
  };
}

/**
 * An exact decimal string as a JSON number, for REST clients (docs/product.md, Usage: amounts are numbers).
 * Number() parses the decimal text directly ("0.0000015" → 1.5e-6), the nearest double, with no
 * intermediate rounding; the exact value stays in billing and in GraphQL's Decimal strings.
 */
export const money = (amount: string): number => {
  const n = Number(amount);
  if (amount.trim() === '' || !Number.isFinite(n))
    throw new ConnectError(`billing returned an amount that is not a decimal: "${amount}"`, Code.Internal);
  return n;
};

/** The Usage response (docs/product.md, Usage) (keys verbatim, `_id` for the chatbot) plus the additive fields. */
export function restUsageReport(view: UsageReportView) {
  const totals = view.overallUsage;
  return {
    subscription: view.subscription,
    currentCreditBalance: money(view.currentCreditBalance),
    overallUsage: {
      totalCost: money(totals.totalCost),
      totalPromptCost: money(totals.totalPromptCost),
      totalCompletionCost: money(totals.totalCompletionCost),
      totalTokens: totals.totalTokens,
      totalPromptTokens: totals.totalPromptTokens,
      totalCompletionTokens: totals.totalCompletionTokens,
      totalRequests: totals.totalRequests,
    },
    recentRequests: view.recentRequests.map((r) => ({
      timestamp: r.timestamp,
      chatbot: r.chatbot,
      model: r.model,
      promptTokens: r.promptTokens,
      completionTokens: r.completionTokens,
      totalTokens: r.totalTokens,
      totalCost: money(r.totalCost),
    })),
    recentRequestsLimit: view.recentRequestsLimit,
    dailyUsage: view.dailyUsage.map((d) => ({
      date: d.date,
      totalCost: money(d.totalCost),
      totalTokens: d.totalTokens,
      requests: d.requests,
    })),
    usageByChatbot: view.usageByChatbot.map((c) => ({
      chatbotId: c.chatbotId,
      name: c.name,
      totalCost: money(c.totalCost),
      requests: c.requests,
    })),
  };
}
