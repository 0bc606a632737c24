// The layers inside each service (docs/adr/0024-layers-in-a-service.md) hold: ESLint, through its
// Node API and the repository's own configuration (tools/lint/config.js), refuses an import against
// them, allows the ones they permit, and finds none against them in the services' code.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { root } from './repo.ts';

// ESLint is installed apart from the workspaces, in tools/lint (`npm run lint` and `npm test` install it).
const lintTools = join(root, 'tools/lint');
const { ESLint } = await import(pathToFileURL(createRequire(join(lintTools, 'package.json')).resolve('eslint')).href);
const { layers } = (await import(pathToFileURL(join(lintTools, 'config.js')).href)) as { layers: Record<string, string[][]> };

const RULE = 'import-x/no-restricted-paths';
// The repository's configuration, running the one rule the layers are (the others have their own run in `npm run lint`).
const eslint = new ESLint({ cwd: root, ruleFilter: ({ ruleId }: { ruleId: string }) => ruleId === RULE });

/** The layer rule's messages for `code` linted as the file at `path` (which need not exist). */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return result.messages.filter((m: { ruleId: string | null }) => m.ruleId === RULE).map((m: { message: string }) => m.message);
}

const folders = (dir: string) =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'generated' && e.name !== '__tests__')
    .map((e) => e.name);

describe('layers inside a service', () => {
  it.each([
    [
      'a capability imports a layer above it',
      'services/chat/src/analytics/probe.ts',
      "import { deleteChatbotConversations } from '../conversations/delete-conversations.ts';\nexport const probe = deleteChatbotConversations;\n",
    ],
    [
      'a type-only import counts too',
      'services/chat/src/analytics/probe.ts',
      "import type { RecentTurns } from '../public-chat/recent-turns.ts';\nexport type Probe = RecentTurns;\n",
    ],
    [
      'two capabilities of one layer',
      'services/chatbot/src/knowledge/probe.ts',
      "import { removePicture } from '../pictures/picture-files.ts';\nexport const probe = removePicture;\n",
    ],
    [
      'the bottom layer imports a capability',
      'services/auth/src/core/probe.ts',
      "import { login } from '../sessions/login.ts';\nexport const probe = login;\n",
    ],
    [
      'a capability imports the composition root',
      'services/billing/src/usage/probe.ts',
      "import * as service from '../service.ts';\nexport const probe = service;\n",
    ],
  ])('refuses an import when %s', async (_case, path, code) => {
    const errors = await layerErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('layers in tools/lint/config.js');
  });

  it.each([
    [
      'a capability imports core/, a lower layer, generated/ and config.ts',
      'services/chat/src/feedback/probe.ts',
      "import { applyRating } from '../analytics/aggregates.ts';\nimport { sessionIds } from '../core/session-id.ts';\nimport type { PrismaClient } from '../generated/prisma/client.ts';\nimport type { ChatConfig } from '../config.ts';\nexport const probe = [applyRating, sessionIds];\nexport type Probe = [PrismaClient, ChatConfig];\n",
    ],
    [
      'a capability imports one of a lower layer',
      'services/chatbot/src/chatbots/probe.ts',
      "import { reindexChatbot } from '../knowledge/index-chunks.ts';\nexport const probe = reindexChatbot;\n",
    ],
    [
      'a unit test composes capabilities',
      'services/chat/src/analytics/__tests__/probe.test.ts',
      "import { deleteChatbotConversations } from '../../conversations/delete-conversations.ts';\nexport const probe = deleteChatbotConversations;\n",
    ],
  ])('allows an import when %s', async (_case, path, code) => {
    expect(await layerErrors(path, code)).toEqual([]);
  });

  it('places every folder of every service in a layer, and names no folder that is gone', () => {
    const services = readdirSync(join(root, 'services')).filter((name) => name !== 'common');
    expect(Object.keys(layers).sort()).toEqual(services.sort());
    for (const [service, capabilities] of Object.entries(layers)) {
      expect(folders(`services/${service}/src`).sort(), service).toEqual(['core', ...capabilities.flat()].sort());
    }
  });

  it('finds no import against the layers in the services', async () => {
    const results = await eslint.lintFiles(Object.keys(layers).map((service) => `services/${service}/src`));
    const errors = results.flatMap((r: { filePath: string; messages: { ruleId: string | null; message: string }[] }) =>
      r.messages.filter((m) => m.ruleId === RULE).map((m) => `${r.filePath}: ${m.message}`),
    );
    expect(errors).toEqual([]);
  });
});
