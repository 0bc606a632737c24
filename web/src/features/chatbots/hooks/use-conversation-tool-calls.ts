import { useEffect, useState } from 'react';
import { listConversationActionCalls } from '../api/actions-api';
import { listConversationMcpToolCalls } from '../api/mcp-servers-api';
import type { ToolCallEntry, ToolCallsSource } from '../../../components/conversations/tool-calls';

export const TOOL_CALLS_FAILED_MESSAGE = 'The calls the bot made could not be loaded.';

/**
 * The calls the bot made in one conversation, oldest first: the actions' and the MCP tools' logs
 * read by the conversation's session (both need `conversations:read`); `enabled` false reads nothing.
 */
export const useConversationToolCalls: ToolCallsSource = (chatbotId, sessionId, enabled) => {
  const [calls, setCalls] = useState<ToolCallEntry[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled || !sessionId) return;
    let live = true;
    Promise.all([listConversationActionCalls(chatbotId, sessionId), listConversationMcpToolCalls(chatbotId, sessionId)]).then(
      ([actions, tools]) => {
        if (!live) return;
        const merged: ToolCallEntry[] = [
          ...actions.filter((c) => c.source !== 'test').map((c) => ({ ...c, kind: 'action' as const, name: c.actionName })),
          ...tools.map((c) => ({ ...c, kind: 'mcp' as const, name: c.toolName, httpStatus: null })),
        ];
        merged.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
        setCalls(merged);
        setError(null);
      },
      () => live && setError(TOOL_CALLS_FAILED_MESSAGE),
    );
    return () => {
      live = false;
    };
  }, [chatbotId, sessionId, enabled]);
  return { calls, error };
};
