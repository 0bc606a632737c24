// A deleted chatbot's analytics go with its conversations: its days, visitors (by day and by year)
// and conversations counted, and its question groups (their days by the foreign key's cascade).
// Called by the rule for a deleted chatbot (conversations/delete-conversations.ts) before its
// conversations go, so a failed step is found again on the retry. Idempotent.
import type { Db } from './aggregates.ts';

export async function deleteChatbotAnalytics(db: Db, chatbotId: string): Promise<void> {
  await db.questionCluster.deleteMany({ where: { chatbotId } });
  await db.analyticsVisitor.deleteMany({ where: { chatbotId } });
  await db.analyticsVisitorYear.deleteMany({ where: { chatbotId } });
  await db.analyticsSession.deleteMany({ where: { chatbotId } });
  await db.analyticsDay.deleteMany({ where: { chatbotId } });
}

/** The chatbots an owner has analytics for (AnalyticsDay's owner index): found even when their conversations are gone. */
export async function chatbotsWithAnalytics(db: Db, ownerId: string): Promise<string[]> {
  const days = await db.analyticsDay.groupBy({ by: ['chatbotId'], where: { ownerId } });
  return days.map((d) => d.chatbotId);
}
