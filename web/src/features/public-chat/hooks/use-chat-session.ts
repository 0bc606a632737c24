import { useCallback, useEffect, useRef, useState } from 'react';
import { PublicChatError, SEND_MESSAGE_FAILED_MESSAGE, sendChatMessage } from '../api/public-chat-api';
import { clearMessages, loadMessages, loadSessionId, saveMessages, saveSessionId, type ChatMessage } from '../chat-storage';

interface Conversation {
  sessionId: string;
  messages: ChatMessage[];
}

/**
 * One visitor's conversation with a chatbot (spec §4): the session id and messages kept in
 * localStorage, one reply at a time, the answer shown as it streams in. A failed send is fatal to
 * the page (it offers Try Again), so `error` is set and nothing else changes.
 */
export function useChatSession(uniqueId: string) {
  const [conversation, setConversation] = useState<Conversation>(() => {
    const sessionId = loadSessionId(uniqueId);
    return { sessionId, messages: loadMessages(uniqueId, sessionId) };
  });
  /** The answer so far while it streams; null when no reply is pending. */
  const [streaming, setStreaming] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A ref as well as state: two quick Enters must not send twice before React re-renders.
  const pendingRef = useRef(false);
  const abortRef = useRef<AbortController | null>(null);

  useEffect(() => {
    saveMessages(uniqueId, conversation.sessionId, conversation.messages);
  }, [uniqueId, conversation]);

  useEffect(() => () => abortRef.current?.abort(), []);

  const send = useCallback(
    async (text: string): Promise<boolean> => {
      const message = text.trim();
      if (!message || pendingRef.current) return false;
      pendingRef.current = true;
      const controller = new AbortController();
      abortRef.current = controller;
      const { sessionId } = conversation;
      setConversation((c) => ({ ...c, messages: [...c.messages, { role: 'user', content: message }] }));
      setStreaming('');
      try {
        const reply = await sendChatMessage({
          uniqueId,
          message,
          sessionId,
          signal: controller.signal,
          onDelta: (delta) => setStreaming((current) => (current ?? '') + delta),
        });
        if (reply.sessionId !== sessionId) {
          // The server's id wins; the conversation moves to the new id's key.
          saveSessionId(uniqueId, reply.sessionId);
          clearMessages(uniqueId, sessionId);
        }
        setConversation((c) => ({
          sessionId: reply.sessionId,
          messages: [...c.messages, { role: 'assistant', content: reply.message }],
        }));
        return true;
      } catch (failure) {
        if (controller.signal.aborted) return false;
        setError(failure instanceof PublicChatError ? failure.message : SEND_MESSAGE_FAILED_MESSAGE);
        return false;
      } finally {
        pendingRef.current = false;
        if (!controller.signal.aborted) setStreaming(null);
      }
    },
    [uniqueId, conversation],
  );

  const clear = useCallback(() => {
    if (pendingRef.current) return;
    clearMessages(uniqueId, conversation.sessionId);
    setConversation((c) => ({ ...c, messages: [] }));
  }, [uniqueId, conversation.sessionId]);

  return {
    sessionId: conversation.sessionId,
    messages: conversation.messages,
    streaming,
    pending: streaming !== null,
    error,
    send,
    clear,
  };
}
