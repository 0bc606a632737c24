import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { readToken } from './token-storage';
import { workspaceHeaders } from './workspace/workspace-storage';

// Reads the token and the chosen workspace on every request, so signing in or out, or switching
// workspaces, needs no client rebuild.
const authLink = new SetContextLink((prevContext) => {
  const token = readToken();
  return {
    headers: {
      ...prevContext.headers,
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...workspaceHeaders(),
    },
  };
});

/**
 * Builds the app's Apollo Client. `terminatingLink` is replaceable so tests can answer operations
 * without a server; the app uses same-origin `/graphql` (the gateway, or Vite's dev proxy).
 */
export function createApolloClient(terminatingLink: ApolloLink = new HttpLink({ uri: '/graphql' })) {
  return new ApolloClient({
    link: ApolloLink.from([authLink, terminatingLink]),
    cache: new InMemoryCache({
      typePolicies: {
        // A knowledge base has no id of its own: a mutation's answer replaces the chatbot's whole.
        Chatbot: { fields: { knowledgeBase: { merge: false } } },
        // An inbox row is one conversation: the live stream's and the actions' answers update it in place.
        InboxItem: { keyFields: ['conversationId'] },
        // Attempts have no id of their own: a delivery's newer answer carries its whole attempt log.
        WebhookDelivery: { fields: { attemptLog: { merge: false } } },
      },
    }),
  });
}
