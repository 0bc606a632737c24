// Whether a conversation's lead form is done (sent or skipped), kept per chatbot and session in
// localStorage so a reload does not ask again. Storage can throw (private mode, quota): then the form
// may simply show again after a reload.
export type LeadFormOutcome = 'sent' | 'skipped';

export const leadOutcomeKey = (uniqueId: string, sessionId: string) => `chatLead_${uniqueId}_${sessionId}`;

export function loadLeadOutcome(uniqueId: string, sessionId: string): LeadFormOutcome | null {
  try {
    const value = localStorage.getItem(leadOutcomeKey(uniqueId, sessionId));
    return value === 'sent' || value === 'skipped' ? value : null;
  } catch {
    return null;
  }
}

export function saveLeadOutcome(uniqueId: string, sessionId: string, outcome: LeadFormOutcome): void {
  try {
    localStorage.setItem(leadOutcomeKey(uniqueId, sessionId), outcome);
  } catch {
    // Not remembered: the form may show again after a reload.
  }
}
