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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

export async function submitLead(input: SubmitLeadInput): Promise<SubmittedLead> {
  const { uniqueId, sessionId, name, email, phone, consent, source = 'form', visitor, embedded } = input;
  const who = visitor && (visitor.id || visitor.name) ? { id: visitor.id, name: visitor.name } : undefined;
  let response: Response;
  try {
    response = await fetch(`/api/chatbot/public/${encodeURIComponent(uniqueId)}/lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(embedded ? { 'x-parley-embed': '1' } : {}) },
      body: JSON.stringify({ sessionId, name, email, phone, consent, source, ...(who ? { visitor: who } : {}) }),
    });
  } catch {
    throw new LeadError(LEAD_FAILED_MESSAGE);
  }
  const body = await readJson(response);
  if (!response.ok) {
    const message = isRecord(body) && typeof body.message === 'string' && body.message.trim() ? body.message.trim() : LEAD_FAILED_MESSAGE;
    throw new LeadError(message);
  }
  if (!isRecord(body) || typeof body.leadId !== 'string') throw new LeadError(LEAD_FAILED_MESSAGE);
  return { leadId: body.leadId, sessionId: typeof body.sessionId === 'string' && body.sessionId ? body.sessionId : sessionId };
}

/** The email a visitor leaves when nobody answered their handoff in time (source handoff_timeout). */
export function submitEmailLead(input: Pick<SubmitLeadInput, 'uniqueId' | 'sessionId' | 'email' | 'visitor' | 'embedded'>) {
  return submitLead({ ...input, source: 'handoff_timeout' });
}
