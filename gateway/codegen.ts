// GraphQL Code Generator for the gateway's resolver types. It reads the schema FILES (never a running
// server), so `node scripts/generate.ts` works offline and in CI.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'src/features/*/schema.graphql',
  generates: {
    'src/generated/graphql.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        // Node's type stripping cannot run TypeScript enums.
        enumsAsTypes: true,
        scalars: { Decimal: 'string', DateTime: 'string' },
        contextType: '../http/context.ts#GraphQLContext',
        // Resolvers hand the auth service's user to the User type; its billing fields resolve lazily.
        // Chatbots are mapped from the chatbot service's messages once, by the views in chatbots.ts.
        mappers: {
          User: '../access/users.ts#AuthUser',
          Chatbot: '../features/chatbots/chatbots.ts#ChatbotView',
          KnowledgeBase: '../features/knowledge/knowledge.ts#KnowledgeBaseView',
          Conversation: '../features/conversations/conversations.ts#ConversationView',
        },
      },
    },
  },
};

export default config;
