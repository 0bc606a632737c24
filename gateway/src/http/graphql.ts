// Apollo Server at /graphql: the schema is every feature's schema.graphql (src/features/*/schema.graphql,
// beside its resolvers; the web app's codegen reads the same files), resolvers are typed by GraphQL
// Code Generator.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type ErrorRequestHandler } from 'express';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { Logger } from '@parley/common/logger.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from './clients.ts';
import { graphQLContext, type GraphQLContext } from './context.ts';
import { bodyParserError, formatGraphQLError, toHttpError } from './errors.ts';
import { cleanTextPlugin, noSubscriptions, OPERATION_BOUNDS, operationBounds, refuseDeepNesting } from './graphql-limits.ts';
import { accountResolvers } from '../features/account/resolvers.ts';
import { apiKeyResolvers } from '../features/api-keys/resolvers.ts';
import { providerKeyResolvers } from '../features/provider-keys/resolvers.ts';
import { identityResolvers } from '../features/identity/resolvers.ts';
import { retentionResolvers } from '../features/retention/retention.ts';
import { channelResolvers } from '../features/channels/resolvers.ts';
import { authResolvers } from '../features/auth/resolvers.ts';
import { billingResolvers } from '../features/billing/resolvers.ts';
import { chatResolvers } from '../features/conversations/resolvers.ts';
import { chatbotResolvers } from '../features/chatbots/resolvers.ts';
import { knowledgeResolvers } from '../features/knowledge/resolvers.ts';
import type { Resolvers } from '../generated/graphql.ts';
import { accessOf, isPermission } from '../access/permissions.ts';
import { inboxResolvers } from '../features/inbox/resolvers.ts';
import { analyticsResolvers } from '../features/analytics/resolvers.ts';
import { unansweredQuestionResolvers } from '../features/unanswered-questions/resolvers.ts';
import { leadResolvers } from '../features/leads/resolvers.ts';
import { qualityResolvers } from '../features/quality/resolvers.ts';
import { userResolvers } from '../features/account/user-resolvers.ts';
import { webhookResolvers } from '../features/webhooks/resolvers.ts';
import { workspaceResolvers } from '../features/workspaces/resolvers.ts';
import type { Seats } from '../features/workspaces/workspaces.ts';

const featuresDir = new URL('../features/', import.meta.url).pathname;

/** Every feature's schema.graphql, in the features' alphabetical order. */
export function loadTypeDefs(): string[] {
  return readdirSync(featuresDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(featuresDir, entry.name, 'schema.graphql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => readFileSync(join(featuresDir, name, 'schema.graphql'), 'utf8'));
}

type FieldResolver = (parent: unknown, args: unknown, ctx: GraphQLContext, info: unknown) => unknown;
type ResolverMap = Record<string, Record<string, unknown>>;

/**
 * Every Query and Mutation field checked against permissions.ts before it runs: an operation that
 * acts in the workspace first authorizes the member with its permission (ctx.authorize); a field
 * the table does not name stops the gateway at start.
 */
export function guardOperations(maps: readonly Resolvers[]): Resolvers[] {
  return maps.map((map) => {
    const guarded = { ...(map as ResolverMap) };
    for (const type of ['Query', 'Mutation']) {
      const fields = guarded[type];
      if (!fields) continue;
      guarded[type] = Object.fromEntries(
        Object.entries(fields).map(([field, resolve]) => {
          const access = accessOf(`${type}.${field}`);
          if (access === undefined) throw new Error(`permissions.ts does not name ${type}.${field}`);
          if (!isPermission(access)) return [field, resolve];
          const guardedResolve: FieldResolver = async (parent, args, ctx, info) => {
            await ctx.authorize(access);
            return (resolve as FieldResolver)(parent, args, ctx, info);
          };
          return [field, guardedResolve];
        }),
      );
    }
    return guarded as Resolvers;
  });
}

/** Every resolver map, merged into one schema by @graphql-tools. */
export const resolvers = guardOperations([
  authResolvers,
  accountResolvers,
  userResolvers,
  chatbotResolvers,
  knowledgeResolvers,
  chatResolvers,
  billingResolvers,
  analyticsResolvers,
  unansweredQuestionResolvers,
  inboxResolvers,
  workspaceResolvers,
  webhookResolvers,
  apiKeyResolvers,
  providerKeyResolvers,
  identityResolvers,
  leadResolvers,
  retentionResolvers,
  qualityResolvers,
  channelResolvers,
]);

export async function createGraphQL(opts: {
  clients: Clients;
  catalogue: ModelCatalogue;
  logger: Logger;
  bodyLimit: string;
  publicUrl: string;
  seats: Seats;
  /** Production hides the schema: no introspection, no "did you mean" suggestions in errors. */
  production: boolean;
}): Promise<{ router: Router; stop: () => Promise<void> }> {
  const server = new ApolloServer<GraphQLContext>({
    schema: makeExecutableSchema({
      typeDefs: loadTypeDefs(),
      resolvers,
    }),
    introspection: !opts.production,
    hideSchemaDetailsFromClientErrors: opts.production,
    parseOptions: { maxTokens: OPERATION_BOUNDS.maxTokens },
    validationRules: [noSubscriptions, operationBounds],
    // Apollo's CSRF guard stays on: the web app always sends `content-type: application/json`.
    csrfPrevention: true,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError(opts.logger),
    // The hosted Sandbox landing page loads scripts from Apollo's CDN, which our CSP forbids.
    plugins: [ApolloServerPluginLandingPageDisabled(), cleanTextPlugin],
    logger: opts.logger,
  });
  await server.start();
  const router = Router();
  // Every answer is the signed-in owner's; Apollo marks successful ones itself, but not refusals.
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(
    express.json({ limit: opts.bodyLimit }),
    refuseDeepNesting,
    expressMiddleware(server, {
      context: async ({ req }) => graphQLContext(req, opts.clients, opts.logger, opts.publicUrl, opts.seats, opts.catalogue),
    }),
  );
  // Bodies Apollo never saw (malformed, too large or nested too deep) still get a GraphQL-shaped answer.
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const { status, body } = bodyParserError(err) ?? toHttpError(err, opts.logger);
    const code = status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
    res.status(status).json({ errors: [{ message: body.message, extensions: { code, http: { status } } }] });
  };
  router.use(onError);
  return { router, stop: () => server.stop() };
}
