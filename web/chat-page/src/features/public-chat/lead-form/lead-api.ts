// POST /api/chatbot/public/{uniqueId}/lead (docs/product.md, Leads): the visitor's contact, left in
// the lead form or, when nobody answered a handoff, as an email only (submitEmailLead). Same origin,
// no sign-in; inside the widget the call says so (X-Parley-Embed), like every public call.
import type { Visitor } from '../embed-messages';

export const LEAD_FAILED_MESSAGE = "Couldn't send your details. Please try again.";

/** A refusal or failure, with the words to show under the form. */
export class LeadError extends Error {
  override name = 'LeadError';
}

export interface SubmitLeadInput {
  uniqueId: string;
  /** The conversation's session id; the server starts a conversation when it did not issue it. */
  sessionId: string;
  name?: string;
  email?: string;
  phone?: string;
  consent?: boolean;
  source?: 'form' | 'handoff_timeout';
  /** Who the host page says the visitor is (its id and name travel, as with a message). */
  visitor?: Visitor | null;
  embedded?: boolean;
}

export interface SubmittedLead {
  leadId: string;
  /** The conversation's session id from now on (a new one when the visitor had none). */
  sessionId: string;
}

/** What the server answers: the lead, or a refusal's `message`. */
type LeadAnswer = { message?: unknown; leadId?: unknown; sessionId?: unknown };

export async function submitLead(input: SubmitLeadInput): Promise<SubmittedLead> {
  const { uniqueId, sessionId, visitor, embedded, source = 'form', ...fields } = input;
  let body: LeadAnswer | null = null;
  let ok = false;
  try {
    const response = await fetch(`/api/chatbot/public/${encodeURIComponent(uniqueId)}/lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(embedded ? { 'x-parley-embed': '1' } : {}) },
      // The visitor's id and name travel as with a message; identify's email only pre-fills the form.
      body: JSON.stringify({ sessionId, ...fields, source, visitor: visitor ? { id: visitor.id, name: visitor.name } : undefined }),
    });
    ok = response.ok;
    body = (await response.json()) as LeadAnswer | null;
  } catch {
    // No answer, or not JSON: the default words.
  }
  if (!ok || typeof body?.leadId !== 'string') {
    const message = typeof body?.message === 'string' && body.message.trim();
    throw new LeadError(message || LEAD_FAILED_MESSAGE);
  }
  return { leadId: body.leadId, sessionId: typeof body.sessionId === 'string' && body.sessionId ? body.sessionId : sessionId };
}

/** The email a visitor leaves when nobody answered their handoff in time (source handoff_timeout). */
export function submitEmailLead(input: Pick<SubmitLeadInput, 'uniqueId' | 'sessionId' | 'email' | 'visitor' | 'embedded'>) {
  return submitLead({ ...input, source: 'handoff_timeout' });
}
