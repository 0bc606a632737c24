import { useCallback, useEffect, useState } from 'react';
import {
  connectMcpServer,
  disconnectMcpServer,
  listMcpServers,
  McpServersApiError,
  refreshMcpServer,
  setMcpServerTools,
  type ConnectMcpServerInput,
  type McpPickedTool,
  type McpServerView,
} from '../api/mcp-servers-api';

export const LOAD_FAILED_MESSAGE = 'Could not load the MCP servers. Please try again.';

/** What the owner is told of a failed call: the server's sentence, or the fallback. */
const messageOf = (err: unknown, fallback: string) => (err instanceof McpServersApiError ? err.message : fallback);

/** A chatbot's MCP servers, and the calls that change them (each refreshes the list). */
export function useMcpServers(chatbotId: string) {
  const [servers, setServers] = useState<McpServerView[]>([]);
  const [loading, setLoading] = useState(true);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ at: string; message: string } | null>(null);

  const reload = useCallback(async () => {
    try {
      setServers(await listMcpServers(chatbotId));
      setFailed(null);
    } catch (err) {
      setFailed(messageOf(err, LOAD_FAILED_MESSAGE));
    } finally {
      setLoading(false);
    }
  }, [chatbotId]);

  useEffect(() => {
    void reload();
  }, [reload]);

  /** Runs one change under a name (what is busy, where its error shows); true when it went through. */
  async function run(at: string, change: () => Promise<unknown>, fallback: string): Promise<boolean> {
    setBusy(at);
    setError(null);
    try {
      await change();
      await reload();
      return true;
    } catch (err) {
      setError({ at, message: messageOf(err, fallback) });
      return false;
    } finally {
      setBusy(null);
    }
  }

  return {
    servers,
    loading,
    failed,
    busy,
    errorAt: (at: string) => (error?.at === at ? error.message : null),
    connect: (input: ConnectMcpServerInput) =>
      run('connect', () => connectMcpServer(chatbotId, input), 'Could not connect the server. Please try again.'),
    refresh: (serverId: string) =>
      run(`refresh:${serverId}`, () => refreshMcpServer(chatbotId, serverId), 'Could not list the tools again. Please try again.'),
    saveTools: (serverId: string, tools: McpPickedTool[]) =>
      run(`tools:${serverId}`, () => setMcpServerTools(chatbotId, serverId, tools), 'Could not save the tools. Please try again.'),
    disconnect: (serverId: string) =>
      run(`disconnect:${serverId}`, () => disconnectMcpServer(chatbotId, serverId), 'Could not disconnect the server. Please try again.'),
  };
}
