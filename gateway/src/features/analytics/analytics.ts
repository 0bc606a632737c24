// Analytics as the product shows them (a chatbot's, or the summary over all the owner's chatbots),
// shared by REST and GraphQL: the range of UTC days they cover and the chat service's figures, with
// the answered share worked out here. The chat service owns the rules (date format, at most 400 days,
// free owners get totals only, visitors' contact details masked for a role that does not read
// conversations); the gateway only fills in a range edge the caller left out, so the page and the
// API agree on "the last 30 days".
import type { Analytics } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Code, ConnectError, invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';

/** The range when the caller gives none: the last 30 UTC days, today included. */
export const DEFAULT_RANGE_DAYS = 30;

/** The chat service's message for a date it cannot read; the gateway says it only for a value that is not text at all. */
export const BAD_DATES_MESSAGE = 'Dates must be YYYY-MM-DD';

const DAY_MS = 24 * 3600 * 1000;

/** Inclusive UTC days, YYYY-MM-DD, exactly as sent to the chat service and echoed in the view. */
export interface AnalyticsRange {
  startDate: string;
  endDate: string;
}

export interface AnalyticsTotalsView {
  conversations: number;
  messages: number;
  uniqueVisitors: number;
  answered: number;
  /** answered / messages, 0 without messages. */
  answeredShare: number;
  thumbsUp: number;
  thumbsDown: number;
  medianAnswerMs: number;
}

export interface AnalyticsDayView {
  date: string;
  conversations: number;
  messages: number;
  uniqueVisitors: number;
}

export interface AskedQuestionView {
  question: string;
  count: number;
}

export interface AnalyticsView extends AnalyticsRange {
  totals: AnalyticsTotalsView;
  /** True for a pro owner: the lists are filled; empty otherwise. */
  full: boolean;
  days: AnalyticsDayView[];
  busiestHours: number[];
  topQuestions: AskedQuestionView[];
  /**
   * The questions' emails, phone numbers and card numbers are masked ("[email]", "[phone]",
   * "[card number]"): the member's role does not read conversations. The chat service decides.
   */
  questionsRedacted: boolean;
}

const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** A YYYY-MM-DD text as the start of that UTC day; undefined for anything else (2025-02-30 included). */
function parseDay(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const day = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(day.getTime()) || utcDay(day) !== text ? undefined : day;
}

/** A date as the caller gave it, trimmed: absent (undefined, null or blank) or text; other JSON (a repeated query key) is refused. */
function givenDay(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(BAD_DATES_MESSAGE);
  return value.trim() || undefined;
}

/**
 * The range to ask for. A missing end is today (UTC); a missing start is the DEFAULT_RANGE_DAYS days
 * ending at the end (or at today when the end is not a date: the chat service refuses it with its own
 * message). Given dates pass through as typed, for the chat service to check.
 */
export function analyticsRange(input: { startDate?: unknown; endDate?: unknown }, now: Date = new Date()): AnalyticsRange {
  const endDate = givenDay(input.endDate) ?? utcDay(now);
  const startDate = givenDay(input.startDate) ?? utcDay(new Date((parseDay(endDate) ?? now).getTime() - (DEFAULT_RANGE_DAYS - 1) * DAY_MS));
  return { startDate, endDate };
}

/** The share of messages the knowledge answered, 0 without messages. */
export const answeredShare = (answered: number, messages: number): number => (messages > 0 ? answered / messages : 0);

export function analyticsView(range: AnalyticsRange, analytics: Analytics | undefined): AnalyticsView {
  const totals = analytics?.totals;
  // A contract violation, not a user error: it surfaces as a logged 500.
  if (!analytics || !totals) throw new ConnectError('chat service returned no analytics', Code.Internal);
  return {
    ...range,
    totals: {
      conversations: totals.conversations,
      messages: totals.messages,
      uniqueVisitors: totals.uniqueVisitors,
      answered: totals.answered,
      answeredShare: answeredShare(totals.answered, totals.messages),
      thumbsUp: totals.thumbsUp,
      thumbsDown: totals.thumbsDown,
      medianAnswerMs: totals.medianAnswerMs,
    },
    full: analytics.full,
    days: analytics.days.map(({ date, conversations, messages, uniqueVisitors }) => ({ date, conversations, messages, uniqueVisitors })),
    busiestHours: [...analytics.busiestHours],
    topQuestions: analytics.topQuestions.map(({ question, count }) => ({ question, count })),
    questionsRedacted: analytics.questionsRedacted,
  };
}

/** One chatbot's analytics; another owner's chatbot is NOT_FOUND (the chat service decides). */
export async function loadChatbotAnalytics(
  clients: Clients,
  ownerId: string,
  chatbotId: string,
  dates: { startDate?: unknown; endDate?: unknown },
): Promise<AnalyticsView> {
  const range = analyticsRange(dates);
  const { analytics } = await clients.chat.getAnalytics({ ownerId, chatbotId, ...range });
  return analyticsView(range, analytics);
}

/** The same figures over every chatbot of the owner. */
export async function loadAnalyticsSummary(
  clients: Clients,
  ownerId: string,
  dates: { startDate?: unknown; endDate?: unknown },
): Promise<AnalyticsView> {
  const range = analyticsRange(dates);
  const { analytics } = await clients.chat.getAnalyticsSummary({ ownerId, ...range });
  return analyticsView(range, analytics);
}
