import type { Plan } from '../session/session-user';

/** "1 interaction", "5 interactions". */
export function interactionsLabel(count: number): string {
  return `${count} ${count === 1 ? 'interaction' : 'interactions'}`;
}

/**
 * Whether the UI offers to create another chatbot (docs/product.md, Plans, credit and checkout): pro owners always, free owners only
 * while they have none. The server enforces the limit; this only avoids offering what will fail.
 */
export function canCreateChatbot(plan: Plan, chatbotCount: number): boolean {
  return plan === 'pro' || chatbotCount === 0;
}
