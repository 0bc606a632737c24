// Which chatbot (id and owner) each recently answered uniqueId named, in process. A chatbot's
// uniqueId, id and owner never change, so this is used only to START the history read while the
// chatbot service is still answering for the chatbot: its result is used only when that answer
// (read fresh on every message) names the same id and owner; otherwise it is dropped and done
// again. Bounded; the oldest names go first.

export interface KnownChatbot {
  id: string;
  ownerId: string;
}

export interface KnownChatbots {
  get(uniqueId: string): KnownChatbot | undefined;
  set(uniqueId: string, chatbot: KnownChatbot): void;
}

export function knownChatbots(maxEntries = 10_000): KnownChatbots {
  const known = new Map<string, KnownChatbot>();
  return {
    get: (uniqueId) => known.get(uniqueId),
    set(uniqueId, chatbot) {
      const held = known.get(uniqueId);
      if (held && held.id === chatbot.id && held.ownerId === chatbot.ownerId) return;
      known.delete(uniqueId);
      if (known.size >= maxEntries) known.delete(known.keys().next().value!);
      known.set(uniqueId, { id: chatbot.id, ownerId: chatbot.ownerId });
    },
  };
}
