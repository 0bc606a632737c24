// What the visitor's path needs of the handoff (docs/adr/0034-humans-in-the-loop.md), implemented by
// handoff/visitor-message.ts and given in by service.ts: while a person has the conversation (waiting
// or human) the bot stays silent, and the visitor's message is stored and pushed to the agents.
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { ReadAlong } from '../core/admission.ts';
import type { HandoffView } from '../core/handoff.ts';

/** Reads along (ReadAlong) the mirror of a continued conversation of a known chatbot that had handoff on; nothing otherwise. */
export interface VisitorHandoff extends ReadAlong {
  /** The Redis mirror's key of (chatbot, session). */
  key(chatbotId: string, sessionId: string): string;
  /** One GET of the mirror: a chatbot with handoff on that this replica did not know before the message. */
  read(chatbotId: string, sessionId: string): Promise<string | null>;
  /**
   * Stores the visitor's message in the conversation a person has (one statement) and pushes it to
   * the visitor's stream and the inbox; null when the bot has the conversation after all (the mirror
   * was stale: it is deleted, and the bot answers).
   */
  keep(message: { chatbot: PublicChatbot; sessionId: string; message: string; receivedAt: Date }): Promise<HandoffView | null>;
  /** A visitor, spend or credit limit stopped the conversation's message (ONE Redis SET): its next handoff is limit_reached (ADR 65). */
  limitStopped(chatbotId: string, sessionId: string, at: Date): Promise<void>;
}
