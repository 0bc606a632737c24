import { ApolloProvider } from '@apollo/client/react';
import { render } from '@testing-library/react';
import { createApolloClient } from '../../../lib/apollo-client';
import { mockLink, type Handler } from '../../../test/mock-link';
import { ChannelsCard } from '../components/channels-card';

/** A channel connection as the gateway answers it, connected; the channel's own fields given by the test. */
export const channelConnection = (fields: Record<string, unknown>) => ({
  __typename: 'ChannelConnection' as const,
  status: 'connected',
  lastError: null,
  lastChatId: null,
  createdAt: '2026-12-03T10:00:00.000Z',
  addedToSlack: false,
  ...fields,
});

/** The chatbot's Channels card on a mocked gateway (no deliveries unless a handler says otherwise); resolves to the calls it made. */
export function renderChannelsCard(handlers: Record<string, Handler>) {
  const { link, calls } = mockLink({ ChannelDeliveries: () => ({ data: { channelDeliveries: [] } }), ...handlers });
  render(
    <ApolloProvider client={createApolloClient(link)}>
      <ChannelsCard chatbotId="c1" />
    </ApolloProvider>,
  );
  return calls;
}
