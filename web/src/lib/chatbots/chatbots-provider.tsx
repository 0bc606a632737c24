import { useApolloClient } from '@apollo/client/react';
import { useCallback, useEffect, useMemo, useReducer, useRef, type ReactNode } from 'react';
import { graphqlErrorMessage } from '../graphql-errors';
import { useSession } from '../session/session-context';
import { useWorkspace } from '../workspace/workspace-context';
import { chatbotListReducer, emptyChatbotList, type ChatbotSummary } from './chatbot-list';
import { ChatbotsContext, type ChatbotsStore } from './chatbots-context';
import { ChatbotsQuery } from './graphql/chatbots-query';
import { createThrottle } from './throttle';

export const FETCH_CHATBOTS_FAILED_MESSAGE = 'Failed to fetch chatbots';
/** docs/product.md, Constants: the chatbot list is fetched at most once per this many milliseconds. */
export const CHATBOTS_REFRESH_INTERVAL_MS = 2000;

/**
 * The signed-in owner's chatbots, shared by the dashboard and /chatbots (docs/product.md, Chatbots):
 * loaded when the user signs in or switches workspace, cleared when they sign out, refreshed at most
 * every 2 s.
 */
export function ChatbotsProvider({ children }: { children: ReactNode }) {
  const client = useApolloClient();
  const { user } = useSession();
  const { key: workspaceKey, noWorkspace } = useWorkspace();
  // Whose list it is: the user's in the workspace they act in (the user's alone without workspaces);
  // nobody's for a person in no workspace, whose list is emptied.
  const userId = user && !noWorkspace ? workspaceKey || user.id : null;
  const [state, dispatch] = useReducer(chatbotListReducer, emptyChatbotList);
  // One throttle per signed-in user: a fetch still running for the previous user must not make the
  // next user's first fetch look like a call to skip.
  // eslint-disable-next-line react-hooks/exhaustive-deps -- userId is the reason for a new throttle, not an input to it
  const throttle = useMemo(() => createThrottle(CHATBOTS_REFRESH_INTERVAL_MS), [userId]);
  // Whose list is wanted now; an answer that arrives for anyone else is dropped.
  const wantedUser = useRef<string | null>(null);

  // The user is passed in, not read from the ref: a page's refresh can start before this
  // provider's effect has recorded the newly signed-in user.
  const fetchChatbots = useCallback(
    async (forUser: string) => {
      dispatch({ type: 'fetchStarted' });
      try {
        const { data } = await client.query({ query: ChatbotsQuery, fetchPolicy: 'network-only' });
        if (!data) throw new Error('empty chatbots response');
        if (wantedUser.current === forUser) dispatch({ type: 'fetchSucceeded', chatbots: data.chatbots });
      } catch (error) {
        if (wantedUser.current === forUser) {
          dispatch({ type: 'fetchFailed', error: graphqlErrorMessage(error) ?? FETCH_CHATBOTS_FAILED_MESSAGE });
        }
      }
    },
    [client],
  );

  const refresh = useCallback(async () => {
    if (userId !== null) await throttle.run(() => fetchChatbots(userId));
  }, [throttle, fetchChatbots, userId]);

  // Signing in loads the (empty) list; signing out clears it.
  useEffect(() => {
    wantedUser.current = userId;
    dispatch({ type: 'cleared' });
    if (userId !== null) void throttle.run(() => fetchChatbots(userId));
    return () => throttle.cancel();
  }, [userId, throttle, fetchChatbots]);

  const add = useCallback((chatbot: ChatbotSummary) => dispatch({ type: 'added', chatbot }), []);
  const update = useCallback((chatbot: Pick<ChatbotSummary, 'id'> & Partial<ChatbotSummary>) => dispatch({ type: 'updated', chatbot }), []);
  const remove = useCallback((id: string) => dispatch({ type: 'removed', id }), []);

  const store = useMemo<ChatbotsStore>(() => ({ ...state, refresh, add, update, remove }), [state, refresh, add, update, remove]);
  return <ChatbotsContext.Provider value={store}>{children}</ChatbotsContext.Provider>;
}
