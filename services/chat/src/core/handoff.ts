// Who answers a conversation (docs/adr/0034-humans-in-the-loop.md), as every capability reads it:
// the four statuses, the moves between them (the ADR's table: each is one conditional UPDATE in
// handoff/conversation-moves.ts), the Redis mirror of a conversation a person has (the visitor's
// path reads it in its admission round trip), and when the bot offers a person. Pure: no I/O.

export const HANDOFF_STATUSES = ['bot', 'waiting', 'human', 'closed'] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

/** The moves of the ADR's table, each from the statuses it may start from. */
export const HANDOFF_MOVES = {
  /** The visitor asks for a person (RequestHandoff). */
  request: { from: ['bot', 'closed'], to: 'waiting' },
  /** An agent takes it (ClaimConversation, or a first reply to a waiting one). */
  claim: { from: ['waiting', 'human'], to: 'human' },
  /** An agent gives it back to the bot (HandBackConversation). */
  handBack: { from: ['waiting', 'human'], to: 'bot' },
  /** The owner's wait ran out (the handoff-timeout job); only the request it was made for. */
  timeout: { from: ['waiting'], to: 'bot' },
  /** An agent closes it (CloseConversation). */
  close: { from: ['waiting', 'human'], to: 'closed' },
  /** The visitor's next message after a close: the bot answers it (in the statement that stores the exchange). */
  resume: { from: ['closed'], to: 'bot' },
} as const satisfies Record<string, { from: readonly HandoffStatus[]; to: HandoffStatus }>;

export type HandoffMove = keyof typeof HANDOFF_MOVES;

/** Whether `move` may start from `status`. */
export const canMove = (status: HandoffStatus, move: HandoffMove): boolean =>
  (HANDOFF_MOVES[move].from as readonly string[]).includes(status);

/** A person answers (or is awaited): the bot stays silent. */
export const personHasIt = (status: HandoffStatus): boolean => status === 'waiting' || status === 'human';

export const isHandoffStatus = (value: unknown): value is HandoffStatus =>
  typeof value === 'string' && (HANDOFF_STATUSES as readonly string[]).includes(value);

/** Where a conversation stands, as the visitor and the agents see it (proto HandoffState). */
export interface HandoffView {
  status: HandoffStatus;
  /** The agent answering (human); '' otherwise. */
  agentName: string;
  /** When the visitor asked for a person (waiting and human); null otherwise. */
  waitingSince: Date | null;
  /** The change that ended a wait nobody answered. */
  timedOut: boolean;
}

export const BOT_VIEW: HandoffView = { status: 'bot', agentName: '', waitingSince: null, timedOut: false };

/** The view of a conversation row's handoff columns. */
export function handoffView(row: {
  handoffStatus: HandoffStatus;
  assigneeName: string | null;
  handoffRequestedAt: Date | null;
}): HandoffView {
  const person = personHasIt(row.handoffStatus);
  return {
    status: row.handoffStatus,
    agentName: row.handoffStatus === 'human' ? (row.assigneeName ?? '') : '',
    waitingSince: person ? row.handoffRequestedAt : null,
    timedOut: false,
  };
}

/** The Redis mirror's value of a conversation a person has: `{"status","agentName","since"}`. */
export function mirrorValue(view: HandoffView): string {
  return JSON.stringify({ status: view.status, agentName: view.agentName, since: view.waitingSince?.toISOString() ?? null });
}

/** The mirror's value read back; null for a missing or malformed one, or one of a status the bot answers. */
export function parseMirror(raw: string | null | undefined): HandoffView | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as { status?: unknown; agentName?: unknown; since?: unknown };
    if (!isHandoffStatus(value.status) || !personHasIt(value.status)) return null;
    const since = typeof value.since === 'string' ? new Date(value.since) : null;
    return {
      status: value.status,
      agentName: typeof value.agentName === 'string' ? value.agentName : '',
      waitingSince: since && !Number.isNaN(since.getTime()) ? since : null,
      timedOut: false,
    };
  } catch {
    return null;
  }
}

// What visitors type when they want a person, per language, lower case. Matched as whole words
// (latin) or as substrings (Chinese, written without spaces). Short on purpose: a false offer costs
// a button the visitor ignores; the unanswered rule catches most of the rest.
const PERSON_PHRASES: readonly string[] = [
  // English
  'human',
  'a person',
  'real person',
  'live person',
  'someone real',
  'an agent',
  'live agent',
  'real agent',
  'customer service',
  'customer support',
  'support team',
  'talk to someone',
  'speak to someone',
  'talk to a person',
  'speak to a person',
  'operator',
  'representative',
  // French
  'humain',
  'une personne',
  'vraie personne',
  'un agent',
  'un conseiller',
  'une conseillère',
  'un opérateur',
  'service client',
  "parler à quelqu'un",
  'un être humain',
  // Chinese
  '人工',
  '真人',
  '客服',
  '转人工',
  '人工服务',
  '找人',
];

const LATIN = /^[\p{Script=Latin}\p{N}\s'’-]+$/u;

const normalise = (text: string) =>
  text
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/[^\p{L}\p{N}'\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Whether the visitor's message asks for a person (English, French or Chinese phrases). */
export function asksForPerson(message: string): boolean {
  const text = ` ${normalise(message)} `;
  return PERSON_PHRASES.some((phrase) => (LATIN.test(phrase) ? text.includes(` ${phrase} `) : text.includes(phrase)));
}

/** The bot offers a person: handoff is on, and the knowledge could not answer or the visitor asked for one. */
export const offersHandoff = (handoffOn: boolean, unanswered: boolean, message: string): boolean =>
  handoffOn && (unanswered || asksForPerson(message));
