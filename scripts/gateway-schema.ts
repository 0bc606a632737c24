// The gateway's GraphQL schema: each feature's schema.graphql, beside its resolvers
// (gateway/src/http/graphql.ts loads the same files), as paths from the repository's root.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

export function gatewaySchemaFiles(): string[] {
  const features = join(root, 'gateway/src/features');
  return readdirSync(features)
    .sort()
    .map((name) => `gateway/src/features/${name}/schema.graphql`)
    .filter((file) => existsSync(join(root, file)));
}
