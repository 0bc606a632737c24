import { ApolloProvider } from '@apollo/client/react';
import { useState } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { createApolloClient } from '../lib/apollo-client';
import { ChatbotsProvider } from '../lib/chatbots/chatbots-provider';
import { SessionProvider } from '../lib/session/session-provider';
import { WorkspaceProvider } from '../lib/workspace/workspace-provider';
import { routes } from './routes';

const router = createBrowserRouter(routes);

export function App() {
  const [client] = useState(() => createApolloClient());
  return (
    <ApolloProvider client={client}>
      <SessionProvider>
        <WorkspaceProvider>
          <ChatbotsProvider>
            <RouterProvider router={router} />
          </ChatbotsProvider>
        </WorkspaceProvider>
      </SessionProvider>
    </ApolloProvider>
  );
}
