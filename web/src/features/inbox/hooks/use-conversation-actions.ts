import { useMutation } from '@apollo/client/react';
import { useCallback, useRef, useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import {
  AddConversationNoteMutation,
  ClaimConversationMutation,
  CloseConversationMutation,
  HandBackConversationMutation,
  ReplyToConversationMutation,
  SummarizeConversationMutation,
} from '../graphql/conversation-mutations';
import { InboxConversationQuery } from '../graphql/inbox-conversation-query';
import { InboxQuery } from '../graphql/inbox-query';
import { InboxWaitingCountQuery } from '../graphql/inbox-waiting-count-query';

export type ConversationAction = 'claim' | 'reply' | 'note' | 'handBack' | 'close' | 'summarize';

const FALLBACK: Record<ConversationAction, string> = {
  claim: 'The conversation could not be claimed. Please try again.',
  reply: 'Your reply could not be sent. Please try again.',
  note: 'The note could not be added. Please try again.',
  handBack: 'The conversation could not be handed back. Please try again.',
  close: 'The conversation could not be closed. Please try again.',
  summarize: 'The summary could not be made. Please try again.',
};

/**
 * An id for each message typed: the same text sent again after a failure keeps its id, so a reply
 * the server stored before the answer was lost is stored once; other text gets a new one.
 */
function useClientMessageIds() {
  const pending = useRef(new Map<string, string>());
  return {
    idFor(kind: string, content: string) {
      const key = `${kind}\u0000${content}`;
      let id = pending.current.get(key);
      if (!id) {
        id = crypto.randomUUID();
        pending.current.set(key, id);
      }
      return id;
    },
    done(kind: string, content: string) {
      pending.current.delete(`${kind}\u0000${content}`);
    },
  };
}

/**
 * What an agent does with one conversation. Each action refetches what it changes (the conversation,
 * the lists, the badge) and keeps the server's message when it fails; resolves to whether it worked.
 */
export function useConversationActions(id: string) {
  const [busy, setBusy] = useState<ConversationAction | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [summary, setSummary] = useState<string | null>(null);
  const ids = useClientMessageIds();
  const refetchQueries = [{ query: InboxConversationQuery, variables: { id } }, { query: InboxQuery }, { query: InboxWaitingCountQuery }];
  const [claim] = useMutation(ClaimConversationMutation, { refetchQueries });
  const [reply] = useMutation(ReplyToConversationMutation, { refetchQueries });
  const [note] = useMutation(AddConversationNoteMutation, { refetchQueries: [{ query: InboxConversationQuery, variables: { id } }] });
  const [handBack] = useMutation(HandBackConversationMutation, { refetchQueries });
  const [close] = useMutation(CloseConversationMutation, { refetchQueries });
  const [summarize] = useMutation(SummarizeConversationMutation);

  const run = useCallback(async (action: ConversationAction, call: () => Promise<unknown>): Promise<boolean> => {
    setBusy(action);
    setError(null);
    try {
      await call();
      return true;
    } catch (failure) {
      setError(userFacingErrorMessage(failure, FALLBACK[action]));
      return false;
    } finally {
      setBusy(null);
    }
  }, []);

  const send = (kind: 'reply' | 'note', content: string) =>
    run(kind, async () => {
      const clientMessageId = ids.idFor(kind, content);
      const mutate = kind === 'reply' ? reply : note;
      await mutate({ variables: { id, content, clientMessageId }, awaitRefetchQueries: true });
      ids.done(kind, content);
    });

  return {
    busy,
    error,
    summary,
    clearError: () => setError(null),
    claim: () => run('claim', () => claim({ variables: { id }, awaitRefetchQueries: true })),
    reply: (content: string) => send('reply', content),
    addNote: (content: string) => send('note', content),
    handBack: () => run('handBack', () => handBack({ variables: { id }, awaitRefetchQueries: true })),
    close: () => run('close', () => close({ variables: { id }, awaitRefetchQueries: true })),
    summarize: () =>
      run('summarize', async () => {
        const { data } = await summarize({ variables: { id } });
        setSummary(data?.summarizeConversation ?? null);
      }),
  };
}
