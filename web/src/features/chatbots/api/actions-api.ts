// A chatbot's HTTP actions are REST (GET/POST/PUT/DELETE /api/chatbot/{id}/actions…, their Test and
// their call log), as MCP servers are: same origin, so only the bearer token and the chosen
// workspace are needed. A refusal carries the chatbot service's message, written for the owner.
import { readToken } from '../../../lib/token-storage';
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';

export const ACTION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const ACTION_INPUT_TYPES = ['string', 'number', 'integer', 'boolean'] as const;
/** Where an input's value comes from: the model, or (userId/email) only the verified visitor. */
export const ACTION_INPUT_SOURCES = ['model', 'userId', 'email'] as const;

export interface ActionInputView {
  name: string;
  type: string;
  description: string;
  required: boolean;
  enum: string[];
  source: string;
}

export interface ActionPair {
  name: string;
  value: string;
}

export interface ActionView {
  id: string;
  chatbotId: string;
  name: string;
  whenToUse: string;
  inputs: ActionInputView[];
  method: string;
  url: string;
  query: ActionPair[];
  headers: ActionPair[];
  body: string;
  /** Write only: the stored value's last four characters. */
  secrets: { name: string; hint: string }[];
  responseFields: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  confirm: boolean;
  identifiedOnly: boolean;
  createdAt: string | null;
  updatedAt: string | null;
}

/** What the owner sends; a secret with an empty value keeps the stored one. */
export interface ActionDefinitionInput {
  name: string;
  whenToUse: string;
  inputs: ActionInputView[];
  method: string;
  url: string;
  query: ActionPair[];
  headers: ActionPair[];
  body: string;
  secrets: { name: string; value: string }[];
  responseFields: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  confirm: boolean;
  identifiedOnly: boolean;
}

export interface ActionTestOutcome {
  status: string;
  error: string | null;
  httpStatus: number | null;
  durationMs: number;
  /** The request as sent, secrets masked. */
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  /** What the bot reads of the answer: the allow-listed fields as JSON text. */
  result: string;
  fieldsRead: string[];
}

export interface ActionCallView {
  id: string;
  actionId: string;
  actionName: string;
  sessionId: string;
  source: string;
  /** Masked as served. */
  inputs: Record<string, unknown>;
  status: string;
  error: string | null;
  httpStatus: number | null;
  durationMs: number;
  fieldsRead: string[];
  createdAt: string | null;
}

/** A refused or failed call, carrying the sentence to show the owner. */
export class ActionsApiError extends Error {}

const base = (chatbotId: string) => `/api/chatbot/${encodeURIComponent(chatbotId)}/actions`;

async function call<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const token = readToken();
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...workspaceHeaders(),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
  } catch {
    throw new ActionsApiError('Could not reach Parley. Please try again.');
  }
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const message = (body as { message?: unknown } | null)?.message;
    throw new ActionsApiError(typeof message === 'string' && res.status < 500 ? message : 'Something went wrong. Please try again.');
  }
  return body as T;
}

export async function listActions(chatbotId: string): Promise<ActionView[]> {
  const actions = await call<unknown>(base(chatbotId));
  if (!Array.isArray(actions)) throw new ActionsApiError('Could not load the actions. Please try again.');
  return actions as ActionView[];
}

export const createAction = (chatbotId: string, definition: ActionDefinitionInput) =>
  call<ActionView>(base(chatbotId), { method: 'POST', body: { definition } });

export const updateAction = (chatbotId: string, actionId: string, definition: ActionDefinitionInput) =>
  call<ActionView>(`${base(chatbotId)}/${encodeURIComponent(actionId)}`, { method: 'PUT', body: { definition } });

export const deleteAction = (chatbotId: string, actionId: string) =>
  call<{ message: string }>(`${base(chatbotId)}/${encodeURIComponent(actionId)}`, { method: 'DELETE' });

export const testAction = (chatbotId: string, actionId: string, inputs: Record<string, unknown>) =>
  call<ActionTestOutcome>(`${base(chatbotId)}/${encodeURIComponent(actionId)}/test`, { method: 'POST', body: { inputs } });

export async function listActionCalls(chatbotId: string, actionId: string, limit = 10): Promise<ActionCallView[]> {
  const q = new URLSearchParams({ actionId, limit: String(limit) });
  const calls = await call<unknown>(`${base(chatbotId)}/calls?${q.toString()}`);
  if (!Array.isArray(calls)) throw new ActionsApiError('Could not load the calls. Please try again.');
  return calls as ActionCallView[];
}

/** One conversation's action calls (the chat's, newest first, at most 200), inputs masked as served. */
export async function listConversationActionCalls(chatbotId: string, sessionId: string): Promise<ActionCallView[]> {
  const q = new URLSearchParams({ sessionId, limit: '200' });
  const calls = await call<unknown>(`${base(chatbotId)}/calls?${q.toString()}`);
  if (!Array.isArray(calls)) throw new ActionsApiError('Could not load the calls. Please try again.');
  return calls as ActionCallView[];
}
