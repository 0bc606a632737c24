// `npm run reencrypt-provider-keys -w @parley/chat`: the last step of rotating
// PROVIDER_KEY_ENCRYPTION_KEY (docs/operations.md). With the new key in PROVIDER_KEY_ENCRYPTION_KEY
// and the old one in PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY, seals every stored own provider key again
// under the new one, then every messaging channel's bot token (ADR 44), and exits 0; 1 when a key or
// token opens under neither (the previous key must then stay).
// It reads only DATABASE_URL, CHAT_DB_SCHEMA and the two keys.
import { commonVars, loadConfig } from '@parley/common/config.ts';
import { prismaAdapter } from '@parley/common/database.ts';
import { chatVars } from './config.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { reencryptProviderKeys } from './provider-keys/reencrypt-provider-keys.ts';
import { reencryptChannelTokens } from './channels/connections.ts';

const config = loadConfig({
  DATABASE_URL: commonVars.DATABASE_URL,
  CHAT_DB_SCHEMA: chatVars.CHAT_DB_SCHEMA,
  PROVIDER_KEY_ENCRYPTION_KEY: chatVars.PROVIDER_KEY_ENCRYPTION_KEY,
  PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY: chatVars.PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY,
});
const prisma = new PrismaClient({
  adapter: prismaAdapter({ databaseUrl: config.DATABASE_URL, schema: config.CHAT_DB_SCHEMA, poolSize: 2 }),
});
try {
  const { reencrypted, current } = await reencryptProviderKeys(prisma, {
    current: config.PROVIDER_KEY_ENCRYPTION_KEY,
    previous: config.PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY,
  });
  process.stdout.write(`provider keys: ${reencrypted} sealed again under the current key, ${current} already under it\n`);
  const channels = await reencryptChannelTokens(prisma, {
    current: config.PROVIDER_KEY_ENCRYPTION_KEY,
    previous: config.PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY,
  });
  process.stdout.write(
    `channel tokens: ${channels.reencrypted} sealed again under the current key, ${channels.current} already under it\n`,
  );
} catch (err) {
  process.stderr.write(`provider keys: could not re-encrypt (${(err as Error).message}); keep PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY set\n`);
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}
