import { useCallback, useEffect, useRef, useState } from 'react';
import {
  HANDOFF_FAILED_MESSAGE,
  HandoffError,
  reconnectDelay,
  requestHandoff,
  StreamRefused,
  withPerson,
  type HandoffState,
  type StreamedMessage,
} from '../api/handoff-api';
import type { ChatReply } from '../api/public-chat-api';
import { loadHandoff, saveHandoff } from '../chat-storage';

/** The notice the chat service stores when a wait ends with nobody answering (docs/adr/0034-humans-in-the-loop.md). */
export const TIMED_OUT_MESSAGE = 'Nobody is free to answer right now. Leave your email and we will get back to you.';

const BOT: HandoffState = { status: 'bot', agentName: null };

export interface HandoffOptions {
  uniqueId: string;
  sessionId: string;
  embedded: boolean;
  /** Adds a streamed message to the conversation (it skips the visitor's own and any it has). */
  addStreamed: (message: StreamedMessage) => void;
  /** The newest message id the page has (an answer's): the stream starts after it. */
  lastMessageId: string | null;
}

/**
 * The visitor's side of handoff (docs/product.md, Talking to a person). Asking for a person moves the
 * conversation to waiting; while it is waiting or a person's, the conversation's stream is open (and
 * reopened after a break, from the last message id it delivered, waiting 1 s, 2 s, 4 s… at most 30 s)
 * and brings the agent's replies and every change of state. When the conversation is the bot's again
 * the stream is closed. A wait that ran out (`timedOut`) asks the visitor for an email. The state and
 * the last id are kept in localStorage, so a reload reconnects.
 */
export function useHandoff({ uniqueId, sessionId, embedded, addStreamed, lastMessageId }: HandoffOptions) {
  const [state, setState] = useState<HandoffState>(() => {
    const stored = loadHandoff(uniqueId, sessionId);
    return stored ? { status: stored.status, agentName: stored.agentName } : BOT;
  });
  const [timedOut, setTimedOut] = useState(false);
  const [requesting, setRequesting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Where the stream resumes: the last message it delivered (kept across reconnections and reloads).
  const lastEventId = useRef<string | null>(loadHandoff(uniqueId, sessionId)?.lastEventId ?? null);
  const latestMessageId = useRef(lastMessageId);
  latestMessageId.current = lastMessageId;
  const addRef = useRef(addStreamed);
  addRef.current = addStreamed;

  const active = withPerson(state);
  const stateRef = useRef(state);
  stateRef.current = state;

  const persist = useCallback(() => {
    const current = stateRef.current;
    saveHandoff(
      uniqueId,
      sessionId,
      withPerson(current)
        ? { status: current.status as 'waiting' | 'human', agentName: current.agentName, lastEventId: lastEventId.current }
        : null,
    );
  }, [uniqueId, sessionId]);

  useEffect(persist, [persist, state]);

  useEffect(() => {
    if (!active) return;
    const abort = new AbortController();
    let sawTimeoutNotice = false;
    const run = async () => {
      let attempt = 0;
      while (!abort.signal.aborted) {
        try {
          // The stream's reader loads on its own, the first time a person is involved.
          const { watchConversation } = await import('../api/conversation-stream');
          await watchConversation(
            { uniqueId, sessionId, embedded, signal: abort.signal, after: lastEventId.current ?? latestMessageId.current },
            {
              onMessage: (message) => {
                attempt = 0;
                lastEventId.current = message.id;
                persist();
                if (message.role === 'system' && message.content === TIMED_OUT_MESSAGE) sawTimeoutNotice = true;
                addRef.current(message);
              },
              onState: (next, ended) => {
                attempt = 0;
                if (ended) {
                  // The notice is stored before the state changes, so it normally came first; if not, it is shown anyway.
                  if (!sawTimeoutNotice)
                    addRef.current({ id: `timeout-${Date.now()}`, role: 'system', content: TIMED_OUT_MESSAGE, authorName: null });
                  setTimedOut(true);
                }
                setState(next);
                if (!withPerson(next)) abort.abort();
              },
            },
          );
        } catch (failure) {
          if (abort.signal.aborted) return;
          // A refusal (the session or the chatbot is gone, handoff switched off) will not change: the bot has the conversation.
          if (failure instanceof StreamRefused && !failure.retry) {
            setState(BOT);
            return;
          }
          attempt++;
        }
        if (abort.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, reconnectDelay(attempt)));
      }
    };
    void run();
    return () => abort.abort();
  }, [active, uniqueId, sessionId, embedded, persist]);

  /** The visitor asks for a person ("Talk to a person"). */
  const request = useCallback(async () => {
    setRequesting(true);
    setError(null);
    try {
      const next = await requestHandoff({ uniqueId, sessionId, embedded });
      lastEventId.current = null;
      setTimedOut(false);
      setState(next);
    } catch (failure) {
      setError(failure instanceof HandoffError ? failure.message : HANDOFF_FAILED_MESSAGE);
    } finally {
      setRequesting(false);
    }
  }, [uniqueId, sessionId, embedded]);

  /** Every chat answer says whether a person is involved; one without `handoff` is the bot's again. */
  const onReply = useCallback((reply: ChatReply) => {
    if (reply.handoff && withPerson(reply.handoff)) {
      setState(reply.handoff);
    } else {
      setState((current) => (withPerson(current) ? BOT : current));
      // The visitor wrote on instead of leaving an email: the bot answers, the form goes.
      setTimedOut(false);
    }
  }, []);

  return { state, active, timedOut, requesting, error, request, onReply, dismissTimeout: () => setTimedOut(false) };
}
