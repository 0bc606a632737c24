import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { withPerson, type StreamedMessage } from '../api/handoff-api';
import { PublicChatError, SEND_MESSAGE_FAILED_MESSAGE, sendChatMessage, sendFeedback, type ChatReply } from '../api/public-chat-api';
import {
  clearMessages,
  loadMessages,
  loadSessionId,
  saveMessages,
  saveSessionId,
  toChatMessage,
  type ChatMessage,
  type ChatRating,
} from '../chat-storage';
import type { Visitor } from '../embed-messages';
import { solveProofOfWork } from '../proof-of-work';

interface Conversation {
  sessionId: string;
  messages: ChatMessage[];
}

/** The conversation with the answer `messageId` rated `rating` (none: unrated); the same one when nothing changes. */
function withRating(conversation: Conversation, messageId: string, rating: ChatRating | undefined): Conversation {
  const { messages } = conversation;
  const index = messages.findIndex((message) => message.messageId === messageId);
  if (index === -1 || messages[index].rating === rating) return conversation;
  const rated: ChatMessage = { ...messages[index], rating };
  if (!rating) delete rated.rating;
  return { ...conversation, messages: messages.map((message, i) => (i === index ? rated : message)) };
}

/** The conversation as shown: a fresh one opens with the chatbot's current welcome, if it has one. */
function shownMessages(messages: ChatMessage[], welcomeMessage: string | null): ChatMessage[] {
  if (messages.length > 0 || !welcomeMessage) return messages;
  return [{ role: 'assistant', content: welcomeMessage, welcome: true }];
}

export interface ChatSessionOptions {
  /** The page is the embed page inside the widget: every call says so. */
  embedded?: boolean;
  /** Who the host page says the visitor is; sent with every message. */
  visitor?: Visitor | null;
  /** The chatbot wants a solved challenge before a new conversation's first message. */
  proofOfWork?: boolean;
  /** Told of every reply (the handoff state it carries). */
  onReply?: (reply: ChatReply) => void;
}

/** The conversation with a streamed message added, unless it has it already (by id) or it is the visitor's own (shown as sent). */
function withStreamed(conversation: Conversation, streamed: StreamedMessage): Conversation {
  if (streamed.role === 'user' || conversation.messages.some((m) => m.messageId === streamed.id)) return conversation;
  const message = toChatMessage({
    role: streamed.role,
    content: streamed.content,
    messageId: streamed.id,
    ...(streamed.authorName ? { authorName: streamed.authorName } : {}),
  });
  return { ...conversation, messages: [...conversation.messages, message] };
}

/**
 * One visitor's conversation with a chatbot (docs/product.md, Public chat): the session id and messages kept in
 * localStorage, one reply at a time, the answer shown as it streams in. A failed send is fatal to
 * the page (it offers Try Again), so `error` is set and nothing else changes. The welcome is only
 * shown (never sent); it is kept with the conversation from the visitor's first message on.
 * Thumbs on an answer show at once and are kept with it; a failed save puts the old rating back.
 * A conversation is new until the visitor has written in it: only then is proof of work solved.
 */
export function useChatSession(uniqueId: string, welcomeMessage: string | null = null, options: ChatSessionOptions = {}) {
  const { embedded = false, visitor = null, proofOfWork = false, onReply } = options;
  const [conversation, setConversation] = useState<Conversation>(() => {
    const sessionId = loadSessionId(uniqueId);
    return { sessionId, messages: loadMessages(uniqueId, sessionId) };
  });
  /** The answer so far while it streams; null when no reply is pending. */
  const [streaming, setStreaming] = useState<string | null>(null);
  // The line shown while one of the chatbot's actions runs, until the answer's words arrive.
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The latest answer came back unanswered (the lead form's when_unanswered trigger). */
  const [unanswered, setUnanswered] = useState(false);
  /** The latest answer asked for the visitor's contact details (the bot's lead form tool). */
  const [leadAsked, setLeadAsked] = useState(false);
  // A ref as well as state: two quick Enters must not send twice before React re-renders.
  const pendingRef = useRef(false);
  const abortRef = useRef<AbortController | null>(null);

  // Stored as soon as it is shown: Preact runs a plain effect only after the next frame, which a
  // hidden frame or a tab in the background may not draw for a while, and drops it if the page goes
  // first, so an answer that had arrived would be missing after a reload.
  useLayoutEffect(() => {
    saveMessages(uniqueId, conversation.sessionId, conversation.messages);
  }, [uniqueId, conversation]);

  useEffect(() => () => abortRef.current?.abort(), []);

  const send = useCallback(
    async (text: string, confirm?: { callId: string; decision: 'confirm' | 'cancel' }): Promise<boolean> => {
      const message = text.trim();
      if (!message || pendingRef.current) return false;
      pendingRef.current = true;
      const controller = new AbortController();
      abortRef.current = controller;
      const { sessionId } = conversation;
      const isNew = !conversation.messages.some((m) => m.role === 'user');
      setConversation((c) => ({
        ...c,
        messages: [
          ...shownMessages(c.messages, welcomeMessage).map((m) =>
            confirm && m.confirmation?.callId === confirm.callId
              ? { ...m, confirmation: { ...m.confirmation, decided: confirm.decision } }
              : m,
          ),
          { role: 'user', content: message },
        ],
      }));
      setStreaming('');
      try {
        const solved = proofOfWork && isNew ? await solveProofOfWork(uniqueId, { embedded, signal: controller.signal }) : undefined;
        const reply = await sendChatMessage({
          uniqueId,
          message,
          sessionId,
          embedded,
          visitor,
          proofOfWork: solved,
          confirm,
          signal: controller.signal,
          onDelta: (delta) => {
            setStatus(null);
            setStreaming((current) => (current ?? '') + delta);
          },
          onStatus: setStatus,
        });
        if (reply.sessionId !== sessionId) {
          // The server's id wins; the conversation moves to the new id's key.
          saveSessionId(uniqueId, reply.sessionId);
          clearMessages(uniqueId, sessionId);
        }
        setUnanswered(reply.unanswered);
        setLeadAsked(reply.showLeadForm);
        // While a person is asked for or answering the bot stays silent: there is no answer to show.
        const silent = withPerson(reply.handoff);
        setConversation((c) => ({
          sessionId: reply.sessionId,
          messages: silent
            ? c.messages
            : [
                ...c.messages,
                toChatMessage({
                  role: 'assistant',
                  content: reply.message,
                  sources: reply.sources,
                  messageId: reply.messageId ?? undefined,
                  ...(reply.offerHandoff ? { offerHandoff: true as const } : {}),
                  ...(reply.confirmation ? { confirmation: reply.confirmation } : {}),
                }),
              ],
        }));
        onReply?.(reply);
        return true;
      } catch (failure) {
        if (controller.signal.aborted) return false;
        setError(failure instanceof PublicChatError ? failure.message : SEND_MESSAGE_FAILED_MESSAGE);
        return false;
      } finally {
        pendingRef.current = false;
        if (!controller.signal.aborted) {
          setStreaming(null);
          setStatus(null);
        }
      }
    },
    [uniqueId, conversation, welcomeMessage, embedded, visitor, proofOfWork, onReply],
  );

  /** A message from the conversation's stream (a person's reply, a notice, the bot's answer). */
  const addStreamed = useCallback((message: StreamedMessage) => {
    setConversation((c) => withStreamed(c, message));
  }, []);

  /** The visitor's Confirm or Cancel on a card: sent as their message, the card decided at once. */
  const decide = useCallback(
    (callId: string, decision: 'confirm' | 'cancel') => send(decision === 'confirm' ? 'Confirm' : 'Cancel', { callId, decision }),
    [send],
  );

  /** Rates one answer (optimistically); whether the server kept it. */
  const rate = useCallback(
    async (messageId: string, rating: ChatRating): Promise<boolean> => {
      const { sessionId, messages } = conversation;
      const previous = messages.find((message) => message.messageId === messageId)?.rating;
      setConversation((c) => withRating(c, messageId, rating));
      try {
        await sendFeedback({ uniqueId, sessionId, messageId, rating, embedded });
        return true;
      } catch {
        setConversation((c) => withRating(c, messageId, previous));
        return false;
      }
    },
    [uniqueId, conversation, embedded],
  );

  /** The server gave the conversation its id before any message (a lead sent first): the chat continues it. */
  const adoptSessionId = useCallback(
    (sessionId: string) => {
      saveSessionId(uniqueId, sessionId);
      setConversation((c) => {
        if (c.sessionId === sessionId) return c;
        clearMessages(uniqueId, c.sessionId);
        return { ...c, sessionId };
      });
    },
    [uniqueId],
  );

  const clear = useCallback(() => {
    if (pendingRef.current) return;
    clearMessages(uniqueId, conversation.sessionId);
    setConversation((c) => ({ ...c, messages: [] }));
  }, [uniqueId, conversation.sessionId]);

  // Memoised so the list only changes (and scrolls) when the conversation does.
  const messages = useMemo(() => shownMessages(conversation.messages, welcomeMessage), [conversation.messages, welcomeMessage]);

  return {
    sessionId: conversation.sessionId,
    messages,
    /** Whether the visitor has written anything yet (suggested questions and Clear depend on it). */
    started: conversation.messages.some((message) => message.role === 'user'),
    streaming,
    status,
    pending: streaming !== null,
    error,
    unanswered,
    leadAsked,
    send,
    decide,
    rate,
    clear,
    addStreamed,
    adoptSessionId,
  };
}
