// The Leads page's filter (docs/product.md, Leads): a chatbot and inclusive UTC days, as both the
// leads query and the CSV export take them. Empty means "every chatbot" and "unbounded".
export interface LeadsFilter {
  chatbotId: string;
  startDate: string;
  endDate: string;
}

export const NO_FILTER: LeadsFilter = { chatbotId: '', startDate: '', endDate: '' };

/** The query's variables: only what is set. */
export function leadsVariables(filter: LeadsFilter): { chatbotId?: string; startDate?: string; endDate?: string } {
  return {
    ...(filter.chatbotId ? { chatbotId: filter.chatbotId } : {}),
    ...(filter.startDate ? { startDate: filter.startDate } : {}),
    ...(filter.endDate ? { endDate: filter.endDate } : {}),
  };
}

/** GET /api/leads/export with the same filter. */
export function leadExportPath(filter: LeadsFilter): string {
  const query = new URLSearchParams(leadsVariables(filter)).toString();
  return `/api/leads/export${query ? `?${query}` : ''}`;
}

export const isFiltered = (filter: LeadsFilter) => Boolean(filter.chatbotId || filter.startDate || filter.endDate);

/** The conversation a lead was left in, in its chatbot's History tab. */
export const conversationLink = (lead: { chatbotId: string; conversationId: string }) =>
  `/chatbots/${encodeURIComponent(lead.chatbotId)}?conversation=${encodeURIComponent(lead.conversationId)}`;

export const SOURCE_LABELS: Record<string, string> = { form: 'Lead form', handoff_timeout: 'Nobody answered' };
