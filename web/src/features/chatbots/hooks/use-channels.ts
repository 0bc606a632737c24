import { useMutation, useQuery } from '@apollo/client/react';
import { useAction } from '../../../lib/use-action';
import {
  ChannelConnectionsQuery,
  ChannelDeliveriesQuery,
  ChannelSkippedMessagesQuery,
  ConnectChannelMutation,
  ConnectMetaChannelMutation,
  ConnectSmsMutation,
  DisconnectChannelMutation,
  SendChannelTestMessageMutation,
} from '../graphql/channels';

export const CONNECT_FAILED_MESSAGE = 'Could not connect the channel. Please try again.';
export const DISCONNECT_FAILED_MESSAGE = 'Could not disconnect the channel. Please try again.';
export const TEST_FAILED_MESSAGE = 'Could not send the test message. Please try again.';

/** The chatbot's channel connections as shown: never a token, its last four characters only. */
export function useChannelConnections(chatbotId: string) {
  const { data, loading, error } = useQuery(ChannelConnectionsQuery, { variables: { chatbotId }, fetchPolicy: 'network-only' });
  return { connections: data?.channelConnections ?? [], loading: loading && !data, failed: Boolean(error) };
}

export function useChannelDeliveries(connectionId: string) {
  const { data, loading, refetch } = useQuery(ChannelDeliveriesQuery, { variables: { connectionId }, fetchPolicy: 'network-only' });
  return { deliveries: data?.channelDeliveries ?? [], loading: loading && !data, refetch };
}

/** The connection's latest messages taken and never answered (email's auto-replies, bounces, loops, mails over the cap). */
export function useSkippedMessages(connectionId: string) {
  const { data, loading } = useQuery(ChannelSkippedMessagesQuery, { variables: { connectionId }, fetchPolicy: 'network-only' });
  return { skipped: data?.channelSkippedMessages ?? [], loading: loading && !data };
}

export function useConnectChannel(chatbotId: string) {
  const [mutate] = useMutation(ConnectChannelMutation, { refetchQueries: [ChannelConnectionsQuery] });
  return useAction(async (channel: string, token: string, signingSecret?: string) => {
    await mutate({ variables: { chatbotId, channel, token, signingSecret: signingSecret ?? null } });
  }, CONNECT_FAILED_MESSAGE);
}

/** WhatsApp, Messenger or Instagram: resolves to the webhook's URL and the verify token, shown once for Meta's console. */
export function useConnectMetaChannel(chatbotId: string) {
  const [mutate] = useMutation(ConnectMetaChannelMutation, { refetchQueries: [ChannelConnectionsQuery] });
  return useAction(async (input: { channel: string; token: string; appSecret: string; accountId: string; businessAccountId?: string }) => {
    const { data } = await mutate({ variables: { chatbotId, ...input, businessAccountId: input.businessAccountId ?? null } });
    return data?.connectChannel ?? null;
  }, CONNECT_FAILED_MESSAGE);
}

/** SMS through Twilio: the Account SID, the Auth Token (sent once, never shown back) and the Twilio number. */
export function useConnectSms(chatbotId: string) {
  const [mutate] = useMutation(ConnectSmsMutation, { refetchQueries: [ChannelConnectionsQuery] });
  return useAction(async (input: { accountId: string; token: string; phoneNumber: string }) => {
    await mutate({ variables: { chatbotId, ...input } });
  }, CONNECT_FAILED_MESSAGE);
}

export function useDisconnectChannel() {
  const [mutate] = useMutation(DisconnectChannelMutation, { refetchQueries: [ChannelConnectionsQuery] });
  return useAction(async (connectionId: string) => {
    await mutate({ variables: { connectionId } });
  }, DISCONNECT_FAILED_MESSAGE);
}

export function useSendChannelTestMessage() {
  const [mutate] = useMutation(SendChannelTestMessageMutation, { refetchQueries: [ChannelConnectionsQuery, ChannelDeliveriesQuery] });
  return useAction(async (connectionId: string, chatId: string) => {
    const { data } = await mutate({ variables: { connectionId, chatId: chatId || null } });
    return data?.sendChannelTestMessage ?? null;
  }, TEST_FAILED_MESSAGE);
}
