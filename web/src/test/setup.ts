import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// The default 1 s for findBy/waitFor is tight when the whole monorepo's tests share two cores.
configure({ asyncUtilTimeout: 5000 });

// The chatbot page's MCP servers card lists its servers over REST of its own when it mounts: in the
// page's tests it has none, so their fetch mocks see only the calls they are about.
vi.mock('../features/chatbots/api/mcp-servers-api', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../features/chatbots/api/mcp-servers-api')>()),
  listMcpServers: async () => [],
}));
// Its Actions card does the same with its actions.
vi.mock('../features/chatbots/api/actions-api', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../features/chatbots/api/actions-api')>()),
  listActions: async () => [],
}));

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
