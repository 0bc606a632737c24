// Personal data kept from the model, for one turn (docs/adr/0049-personal-data-kept-from-the-model.md):
// a chatbot with `privacy.redact_personal_data` has the visitor's message and the conversation's
// history read through one redactor (personal-data.ts) before the prompt is built, the model's
// answer restored for the visitor (streamed too), and what the turn leaves behind (the stored
// exchange, the kept turns, the analytics event, a message kept for a person) written as the owner
// chose: the visitor's words as typed with `keep_original`, else as the model read them. A chatbot
// with it off gets null here and its turn is unchanged.
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { compileRedactionPatterns, redactor, type Redactor } from '@parley/common/personal-data.ts';
import type { Turn } from './build-prompt.ts';

export interface TurnPrivacy {
  redactor: Redactor;
  /** The stored conversation keeps the visitor's words as typed. */
  keepOriginal: boolean;
}

/** The turn's redactor, or null for a chatbot that does not keep personal data from the model. */
export function turnPrivacy(chatbot: PublicChatbot): TurnPrivacy | null {
  const privacy = chatbot.privacy;
  if (!privacy?.redactPersonalData) return null;
  return { redactor: redactor({ custom: compileRedactionPatterns(privacy.patterns) }), keepOriginal: privacy.keepOriginal };
}

/**
 * The history and the message as the model reads them: the history first, so a placeholder a
 * history stored redacted already holds is never given to a new detail of the message.
 */
export function forTheModel(privacy: TurnPrivacy | null, history: Turn[], message: string): { history: Turn[]; message: string } {
  if (!privacy) return { history, message };
  const r = privacy.redactor;
  return { history: history.map((t) => ({ role: t.role, content: r.redact(t.content) })), message: r.redact(message) };
}

/** A text of the turn as it is stored, kept or published: as typed, or as the model read it. */
export function asStored(privacy: TurnPrivacy | null, text: string): string {
  return !privacy || privacy.keepOriginal ? text : privacy.redactor.redact(text);
}

/** The model's answer as the visitor reads it: the placeholders it echoed put back. */
export function restored(privacy: TurnPrivacy | null, text: string): string {
  return privacy ? privacy.redactor.restore(text) : text;
}

/**
 * The visitor's stream of deltas, restored: a placeholder split across deltas is held until it is
 * whole. `end` sends what was held once the model has finished. Without privacy, `onDelta` itself.
 */
export function restoringStream(
  privacy: TurnPrivacy | null,
  onDelta: (delta: string) => void,
): { onDelta: (delta: string) => void; end: () => void } {
  if (!privacy) return { onDelta, end: () => {} };
  const stream = privacy.redactor.restoring();
  return {
    onDelta: (delta) => {
      const shown = stream.push(delta);
      if (shown) onDelta(shown);
    },
    end: () => {
      const rest = stream.end();
      if (rest) onDelta(rest);
    },
  };
}
