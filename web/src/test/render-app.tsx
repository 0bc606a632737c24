import type { ApolloLink } from '@apollo/client';
import { ApolloProvider } from '@apollo/client/react';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { routes } from '../app/routes';
import { createApolloClient } from '../lib/apollo-client';
import { ChatbotsProvider } from '../lib/chatbots/chatbots-provider';
import { SessionProvider } from '../lib/session/session-provider';
import { WorkspaceProvider } from '../lib/workspace/workspace-provider';

/** Renders the whole app (real routes, session and Apollo Client) at `path`, answering GraphQL with `link`. */
export function renderApp(path: string, link: ApolloLink) {
  const client = createApolloClient(link);
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const view = render(
    <ApolloProvider client={client}>
      <SessionProvider>
        <WorkspaceProvider>
          <ChatbotsProvider>
            <RouterProvider router={router} />
          </ChatbotsProvider>
        </WorkspaceProvider>
      </SessionProvider>
    </ApolloProvider>,
  );
  return { ...view, router, client };
}
