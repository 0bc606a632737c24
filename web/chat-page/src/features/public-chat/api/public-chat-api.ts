// The public chat page's REST client: same-origin, JSON, and never a sign-in token (docs/product.md, Public chat).
// Inside the widget (the /embed/{uniqueId} page) every call says so with `X-Parley-Embed: 1`, which
// the gateway turns into `embedded` for the site rule (ADR 19).
import { readAppearance, type Appearance } from '../appearance';
import { readSources, type ChatSource } from '../../../components/citations/chat-sources';
import type { ChatRating } from '../chat-storage';
import type { Visitor } from '../embed-messages';
import { PUBLIC_CHATBOT_NOT_FOUND } from '../not-found';
import { readHandoffState, type HandoffState } from './handoff-api';
import { readLeadForm, type LeadFormConfig } from '../lead-form/lead-form-config';
import { readEventStream } from '../../../lib/read-event-stream';

export const SEND_MESSAGE_FAILED_MESSAGE = 'Failed to get response from chatbot';
export const FEEDBACK_FAILED_MESSAGE = "Couldn't save your feedback";
/**
 * The `model` value the public chat's contract fixes for the page (docs/product.md, Public chat). It
 * names no model: the server ignores it, and the chatbot answers with the model its owner chose.
 */
export const CHAT_MODEL = 'gpt-4o-mini';
/** The page shows at most this many suggested questions, as the server stores them. */
export const MAX_SUGGESTED_QUESTIONS = 4;

export interface PublicChatbot {
  name: string;
  /** A URL path such as "/media/chatbots/…", or null for the initials avatar. */
  profilePicture: string | null;
  /** The owner's greeting, shown as the first assistant bubble; null when there is none. */
  welcomeMessage: string | null;
  /** Questions a visitor can send with one click before asking anything. */
  suggestedQuestions: string[];
  appearance: Appearance;
  /** A new conversation's first message must carry a solved challenge (see proof-of-work.ts). */
  proofOfWork: boolean;
  /** The visitor may ask for a person ("Talk to a person"). */
  handoff: boolean;
  /** The lead form (lead-form/); null when it asks for nothing. */
  leadForm: LeadFormConfig | null;
}

export interface ChatReply {
  message: string;
  sessionId: string;
  /** What the answer cites: its `[n]` markers are sources[n - 1]. */
  sources: ChatSource[];
  /** The stored answer's id, which feedback refers to; null when the server sent none. */
  messageId: string | null;
  /** The bot offers a person under this answer. */
  offerHandoff: boolean;
  /** The knowledge could not answer. */
  unanswered: boolean;
  /** The bot asked for the visitor's contact details: the lead form shows. */
  showLeadForm: boolean;
  /** Set while a person is asked for or answering: the bot stayed silent (`message` is empty). */
  handoff: HandoffState | null;
  /** The answer asks the visitor to confirm an action (the card); null otherwise. */
  confirmation: ActionConfirmation | null;
}

/** An action call waiting for the visitor: Confirm or Cancel names its id. */
export interface ActionConfirmation {
  callId: string;
  question: string;
}

export function readConfirmation(value: unknown): ActionConfirmation | null {
  if (!isRecord(value) || typeof value.callId !== 'string' || !value.callId || typeof value.question !== 'string') return null;
  return { callId: value.callId, question: value.question.slice(0, 300) };
}

/** A failure whose message is meant for the visitor: the server's own text, or the default. */
export class PublicChatError extends Error {
  override name = 'PublicChatError';
}

const JSON_HEADERS = { 'content-type': 'application/json' };
export const EMBED_HEADER = 'x-parley-embed';

/** What every call sends: JSON, and the embed page's mark when it is one. */
function headersFor(embedded: boolean | undefined, extra?: Record<string, string>): Record<string, string> {
  return { ...JSON_HEADERS, ...(embedded ? { [EMBED_HEADER]: '1' } : {}), ...extra };
}

function chatbotPath(uniqueId: string): string {
  return `/api/chatbot/public/${encodeURIComponent(uniqueId)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The server's `message` when it sent a usable one. */
function serverMessage(body: unknown): string | undefined {
  const message = isRecord(body) ? body.message : undefined;
  return typeof message === 'string' && message.trim() ? message.trim() : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function readJson(response: Response): Promise<unknown> {
  return parseJson(await response.text().catch(() => ''));
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

function suggestedQuestions(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map(nonEmpty)
    .filter((question): question is string => question !== null)
    .slice(0, MAX_SUGGESTED_QUESTIONS);
}

export interface RequestOptions {
  /** The call comes from the embed page inside the widget. */
  embedded?: boolean;
  signal?: AbortSignal;
}

/**
 * GET /api/chatbot/public/{uniqueId}: the name, picture, welcome, suggested questions and appearance
 * the page shows, and whether a new conversation needs proof of work.
 */
export async function fetchPublicChatbot(uniqueId: string, { embedded, signal }: RequestOptions = {}): Promise<PublicChatbot> {
  let response: Response;
  try {
    response = await fetch(chatbotPath(uniqueId), { headers: headersFor(embedded), signal });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new PublicChatError(PUBLIC_CHATBOT_NOT_FOUND);
  }
  const body = await readJson(response);
  if (!response.ok || !isRecord(body) || typeof body.name !== 'string') {
    throw new PublicChatError((!response.ok && serverMessage(body)) || PUBLIC_CHATBOT_NOT_FOUND);
  }
  const picture = body.profilePicture;
  return {
    name: body.name,
    profilePicture: typeof picture === 'string' && picture ? picture : null,
    welcomeMessage: nonEmpty(body.welcomeMessage),
    suggestedQuestions: suggestedQuestions(body.suggestedQuestions),
    appearance: readAppearance(body.appearance),
    proofOfWork: body.proofOfWork === true,
    handoff: body.handoff === true,
    leadForm: readLeadForm(body.leadForm),
  };
}

/** An ALTCHA (v1) challenge, as GET /api/chatbot/public/{uniqueId}/challenge answers it. */
export interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

function readChallenge(body: unknown): Challenge | null {
  if (!isRecord(body)) return null;
  const { algorithm, challenge, maxnumber, salt, signature } = body;
  if (typeof algorithm !== 'string' || typeof challenge !== 'string' || typeof salt !== 'string' || typeof signature !== 'string')
    return null;
  return { algorithm, challenge, salt, signature, maxnumber: typeof maxnumber === 'number' && maxnumber > 0 ? maxnumber : 1e6 };
}

/** GET /api/chatbot/public/{uniqueId}/challenge: a proof-of-work challenge for a new conversation. */
export async function fetchChallenge(uniqueId: string, { embedded, signal }: RequestOptions = {}): Promise<Challenge> {
  let response: Response;
  try {
    response = await fetch(`${chatbotPath(uniqueId)}/challenge`, { headers: headersFor(embedded), signal });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new PublicChatError(SEND_MESSAGE_FAILED_MESSAGE);
  }
  const body = await readJson(response);
  const challenge = response.ok ? readChallenge(body) : null;
  if (!challenge) throw new PublicChatError((!response.ok && serverMessage(body)) || SEND_MESSAGE_FAILED_MESSAGE);
  return challenge;
}

function toReply(body: unknown, sessionId: string): ChatReply {
  if (!isRecord(body) || typeof body.message !== 'string') throw new PublicChatError(SEND_MESSAGE_FAILED_MESSAGE);
  return {
    message: body.message,
    sessionId: typeof body.sessionId === 'string' && body.sessionId ? body.sessionId : sessionId,
    sources: readSources(body.sources),
    messageId: nonEmpty(body.messageId),
    offerHandoff: body.offerHandoff === true,
    unanswered: body.unanswered === true,
    showLeadForm: body.showLeadForm === true,
    handoff: readHandoffState(body.handoff),
    confirmation: readConfirmation(body.confirmation),
  };
}

export interface SendChatMessageInput {
  uniqueId: string;
  message: string;
  sessionId: string;
  /** Called with each piece of the answer as it streams in. */
  onDelta: (delta: string) => void;
  /** Called with a status line while one of the chatbot's actions runs ("Looking up order…"). */
  onStatus?: (status: string) => void;
  signal?: AbortSignal;
  embedded?: boolean;
  /** Who the host page says the visitor is (the widget's identify). */
  visitor?: Visitor | null;
  /** The solved challenge (base64 ALTCHA payload), on a new conversation's first message when required. */
  proofOfWork?: string;
  /** The visitor's answer to a confirmation card. */
  confirm?: { callId: string; decision: 'confirm' | 'cancel' };
}

/**
 * POST /api/chatbot/public/{uniqueId}/chat, asking for a stream: `delta` events carry the answer
 * piece by piece, `done` the full text (its citation markers renumbered), the session id to keep,
 * the sources cited and the stored answer's id, `error` a failure mid-answer.
 * Failures before the stream starts are a plain JSON error; a plain JSON answer is accepted too.
 */
const visitorOf = ({ id, name, email, userHash }: Visitor) => (userHash ? { id, name, email, userHash } : { id, name });

export async function sendChatMessage(input: SendChatMessageInput): Promise<ChatReply> {
  const { uniqueId, message, sessionId, onDelta, onStatus, signal, embedded, visitor, proofOfWork, confirm } = input;
  let response: Response;
  try {
    response = await fetch(`${chatbotPath(uniqueId)}/chat`, {
      method: 'POST',
      headers: headersFor(embedded, { accept: 'text/event-stream' }),
      body: JSON.stringify({
        message,
        sessionId,
        model: CHAT_MODEL,
        // The email (identify's, for the lead form) is not the conversation's: only the id and name
        // travel, and with a userHash (a verified identity, checked by the server) the email too.
        ...(visitor ? { visitor: visitorOf(visitor) } : {}),
        ...(proofOfWork ? { proofOfWork } : {}),
        ...(confirm ? { confirm } : {}),
      }),
      signal,
    });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new PublicChatError(SEND_MESSAGE_FAILED_MESSAGE);
  }

  if (!response.ok) throw new PublicChatError(serverMessage(await readJson(response)) ?? SEND_MESSAGE_FAILED_MESSAGE);
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.includes('text/event-stream') || !response.body) return toReply(await readJson(response), sessionId);

  let streamed = '';
  try {
    for await (const { event, data } of readEventStream(response.body)) {
      const payload = parseJson(data);
      if (event === 'delta') {
        const delta = isRecord(payload) ? payload.delta : undefined;
        if (typeof delta === 'string' && delta) {
          streamed += delta;
          onDelta(delta);
        }
      } else if (event === 'status') {
        const status = isRecord(payload) ? payload.status : undefined;
        if (typeof status === 'string' && status) onStatus?.(status.slice(0, 200));
      } else if (event === 'done') {
        const done = isRecord(payload) ? payload : {};
        // The full text wins over the pieces; the pieces stand in only if the server left it out.
        return toReply({ ...done, message: typeof done.message === 'string' ? done.message : streamed }, sessionId);
      } else if (event === 'error') {
        throw new PublicChatError(serverMessage(payload) ?? SEND_MESSAGE_FAILED_MESSAGE);
      }
    }
  } catch (error) {
    if (error instanceof PublicChatError || isAbort(error)) throw error;
    throw new PublicChatError(SEND_MESSAGE_FAILED_MESSAGE);
  }
  // The connection closed before `done`: the answer is incomplete.
  throw new PublicChatError(SEND_MESSAGE_FAILED_MESSAGE);
}

export interface SendFeedbackInput {
  uniqueId: string;
  sessionId: string;
  messageId: string;
  rating: ChatRating;
  embedded?: boolean;
}

/**
 * POST /api/chatbot/public/{uniqueId}/feedback: the visitor's thumbs on one answer of their own
 * conversation (one rating per answer; a new one replaces it). Any failure is the one inline message,
 * since the visitor can only try again.
 */
export async function sendFeedback({ uniqueId, sessionId, messageId, rating, embedded }: SendFeedbackInput): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${chatbotPath(uniqueId)}/feedback`, {
      method: 'POST',
      headers: headersFor(embedded),
      body: JSON.stringify({ sessionId, messageId, rating }),
    });
  } catch {
    throw new PublicChatError(FEEDBACK_FAILED_MESSAGE);
  }
  if (!response.ok) throw new PublicChatError(FEEDBACK_FAILED_MESSAGE);
}
