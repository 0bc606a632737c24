// The visitor's side of handoff (docs/product.md, Talking to a person): asking for a person and the
// conversation's live stream while one is involved (the email left when nobody was free is a lead:
// lead-form/lead-api.ts). The same public paths as the chat, with no sign-in; the stream is read with
// fetch (not EventSource) so the embed page can mark its calls like every other; its reader
// (conversation-stream.ts) loads only when a person is involved, as the page's JavaScript has a
// budget (ADR 21).

export const HANDOFF_FAILED_MESSAGE = "Couldn't reach a person right now. Please try again.";

export type HandoffStatus = 'bot' | 'waiting' | 'human' | 'closed';

/** Where the conversation stands: the bot's, waiting for a person, or a person's (agentName). */
export interface HandoffState {
  status: HandoffStatus;
  /** The agent answering (human); null otherwise. */
  agentName: string | null;
}

/** A message the stream carries: the bot's, a person's (agent), the product's (system) or the visitor's own (user). */
export interface StreamedMessage {
  id: string;
  role: 'user' | 'assistant' | 'agent' | 'system';
  content: string;
  authorName: string | null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const STATUSES: readonly string[] = ['bot', 'waiting', 'human', 'closed'];

/** A handoff state from the server (the chat answer's `handoff`, the handoff call, a `state` event); null when unreadable. */
export function readHandoffState(value: unknown): HandoffState | null {
  if (!isRecord(value) || typeof value.status !== 'string' || !STATUSES.includes(value.status)) return null;
  const agentName = typeof value.agentName === 'string' && value.agentName.trim() ? value.agentName.trim() : null;
  return { status: value.status as HandoffStatus, agentName };
}

/** Whether a person is involved: the bot stays silent and the stream is open. */
export function withPerson(state: HandoffState | null | undefined): boolean {
  return state?.status === 'waiting' || state?.status === 'human';
}

export function headersFor(embedded: boolean | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', ...(embedded ? { 'x-parley-embed': '1' } : {}), ...extra };
}

export function path(uniqueId: string, rest: string): string {
  return `/api/chatbot/public/${encodeURIComponent(uniqueId)}/${rest}`;
}

async function serverMessage(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.json();
    const message = isRecord(body) ? body.message : undefined;
    return typeof message === 'string' && message.trim() ? message.trim() : undefined;
  } catch {
    return undefined;
  }
}

export class HandoffError extends Error {
  override name = 'HandoffError';
}

/** POST /api/chatbot/public/{uniqueId}/handoff: the visitor asks for a person; the state as it now is. */
export async function requestHandoff(input: { uniqueId: string; sessionId: string; embedded?: boolean }): Promise<HandoffState> {
  let response: Response;
  try {
    response = await fetch(path(input.uniqueId, 'handoff'), {
      method: 'POST',
      headers: headersFor(input.embedded),
      body: JSON.stringify({ sessionId: input.sessionId }),
    });
  } catch {
    throw new HandoffError(HANDOFF_FAILED_MESSAGE);
  }
  if (!response.ok) throw new HandoffError((await serverMessage(response)) ?? HANDOFF_FAILED_MESSAGE);
  const state = readHandoffState(await response.json().catch(() => null));
  if (!state) throw new HandoffError(HANDOFF_FAILED_MESSAGE);
  return state;
}

/** The stream was answered with an error status: 4xx will not change by trying again (but 408 and 429 may). */
export class StreamRefused extends Error {
  override name = 'StreamRefused';
  readonly retry: boolean;
  readonly status: number;
  constructor(status: number) {
    super(`conversation stream refused: ${status}`);
    this.status = status;
    this.retry = status >= 500 || status === 408 || status === 429 || status === 0;
  }
}

/** The wait before the next reconnection: 1 s, doubling, at most 30 s, with some jitter so pages spread out. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.75 + random() * 0.5));
}
