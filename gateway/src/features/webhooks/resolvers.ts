// GraphQL counterparts of /api/workspace/webhooks: the same calls (./webhooks.ts), delivery statuses
// as the WebhookDeliveryStatus enum.
import type { Resolvers, WebhookDeliveryStatus } from '../../generated/graphql.ts';
import {
  createEndpoint,
  deleteEndpoint,
  lastDelivery,
  listDeliveries,
  listEndpoints,
  redeliver,
  rollSecret,
  sendTestEvent,
  updateEndpoint,
  webhookEventTypes,
  type WebhookDeliveryView,
} from './webhooks.ts';

const withEnumStatus = (view: WebhookDeliveryView) => ({ ...view, status: view.status.toUpperCase() as WebhookDeliveryStatus });

export const webhookResolvers: Resolvers = {
  Query: {
    webhookEndpoints: async (_parent, _args, ctx) => listEndpoints(ctx.clients, await ctx.member()),
    webhookDeliveries: async (_parent, { endpointId, first, after }, ctx) => {
      const page = await listDeliveries(ctx.clients, await ctx.member(), endpointId, { first, after });
      return { ...page, deliveries: page.deliveries.map(withEnumStatus) };
    },
    webhookEventTypes: () => webhookEventTypes(),
  },
  Mutation: {
    createWebhookEndpoint: async (_parent, { input }, ctx) => createEndpoint(ctx.clients, await ctx.member(), input),
    updateWebhookEndpoint: async (_parent, { id, input }, ctx) => updateEndpoint(ctx.clients, await ctx.member(), id, input),
    deleteWebhookEndpoint: async (_parent, { id }, ctx) => {
      await deleteEndpoint(ctx.clients, await ctx.member(), id);
      return true;
    },
    rollWebhookSecret: async (_parent, { id }, ctx) => rollSecret(ctx.clients, await ctx.member(), id),
    redeliverWebhook: async (_parent, { endpointId, deliveryId }, ctx) =>
      withEnumStatus(await redeliver(ctx.clients, await ctx.member(), endpointId, deliveryId)),
    sendTestWebhook: async (_parent, { endpointId, eventType }, ctx) =>
      withEnumStatus(await sendTestEvent(ctx.clients, await ctx.member(), endpointId, eventType)),
  },
  WebhookEndpoint: {
    // Asked only when the query selects it: one call per endpoint (a workspace has at most 20).
    lastDelivery: async (endpoint, _args, ctx) => {
      const last = await lastDelivery(ctx.clients, await ctx.member(), endpoint.id);
      return last ? withEnumStatus(last) : null;
    },
  },
};
