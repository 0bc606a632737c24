// GraphQL Code Generator for the web app. It reads the gateway's schema FILES, never a running
// server, so types can be generated offline and in CI before anything is started.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: '../gateway/src/features/*/schema.graphql',
  documents: ['src/**/*.{ts,tsx}', '!src/gql/**/*'],
  ignoreNoDocuments: true,
  generates: {
    'src/gql/': {
      preset: 'client',
      // Components read fields straight from operation results; masking would add ceremony for no gain here.
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { Decimal: 'string', DateTime: 'string' },
      },
    },
  },
};

export default config;
