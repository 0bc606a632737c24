// A fresh chat schema (the service's migrations applied) and a Prisma client on it, for one test file.
import { prismaAdapter } from '@parley/common/database.ts';
import { createTestSchema } from '@parley/common/testing/infra.ts';
import { PrismaClient } from '../../generated/prisma/client.ts';
import { MIGRATIONS_DIR } from '../../service.ts';

export async function testDb(): Promise<{ db: PrismaClient; close: () => Promise<void> }> {
  const schema = await createTestSchema('chat', MIGRATIONS_DIR);
  const db = new PrismaClient({ adapter: prismaAdapter({ databaseUrl: schema.databaseUrl, schema: schema.schema }) });
  return {
    db,
    close: async () => {
      await db.$disconnect();
      await schema.drop();
    },
  };
}
