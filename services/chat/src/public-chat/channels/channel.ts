// The channel a visitor's message arrives on (docs/adr/0040-channels.md): the public page, the
// widget, the developer API, the OpenAI-compatible endpoint. It is chosen once, where the message
// enters the chat service (rpc.ts), and carries the rules that differ from one channel to another;
// the turn (public-chat/send-message.ts) reads its answers and never asks who called. Each channel
// is one file in channels/ declaring these rules; a messaging channel (Telegram) enters through its
// worker (channels/answer-update.ts at the service's top level) rather than rpc.ts.
import type { MessageInput } from '../../core/message-input.ts';

export interface Channel {
  /** How logs and docs name it. */
  readonly name: string;
  /** The chatbot's allowed sites and standalone page apply (visitor-site.ts): a browser's page sent the message. */
  readonly siteRules: boolean;
  /** A new conversation's first message brings a solved challenge when the chatbot asks for one (proof-of-work.ts). */
  readonly proofOfWork: boolean;
  /**
   * The message counts against the per-minute rate limits (admission.ts) and the visitor's messages
   * today (daily-limits.ts). False for the owner's own test runs, which are no visitor's.
   */
  readonly counted: boolean;
  /** Whom the message counts against. */
  visitor(input: MessageInput): ChannelVisitor;
  /** Where the prompt's history comes from: the conversation's kept turns (history-source.ts), or the turns the client sent. */
  readonly history: 'kept' | 'client';
  /** How the answer reaches the visitor. */
  readonly answer: AnswerForm;
  /**
   * The client can show the lead form when an answer asks for it (`showLeadForm`): the page, the
   * widget, an API client. A messaging channel shows text alone, so its model is not offered the
   * lead form's tool, whose result tells the visitor a form is shown (tool-loop.ts).
   */
  readonly leadForm: boolean;
}

/**
 * `markers`: the answer keeps its [n] markers, numbered as the sources it carries (citations.ts),
 * and may stream as the model writes it (StreamMessage). `plain`: the markers are left out of the
 * text, for a client that shows text alone; it is sent once, whole, since the markers can only be
 * taken out of the finished answer. `links`: as `plain`, the markers left out and the answer sent
 * whole, and the channel's sender lists the cited sources after the text as links (a messaging
 * channel, docs/adr/0044-messaging-channels.md).
 */
export type AnswerForm = { citations: 'markers'; streams: boolean } | { citations: 'plain' | 'links'; streams: false };

/** Who the visitor is, for each limit that counts them. */
export interface ChannelVisitor {
  /** The per-minute rate limit's visitor (admission.ts); null: an address the gateway could not tell. */
  rateLimited: string | null;
  /** The address whose messages today the chatbot's visitor limit counts (daily-limits.ts); null: unknown. */
  countedToday: string | null;
}
