import { useEffect, useState } from 'react';
import { listConversationActionCalls } from '../api/actions-api';
import { listConversationMcpToolCalls } from '../api/mcp-servers-api';

/** One tool call of a conversation as History shows it: an HTTP action's or an MCP tool's, from their logs. */
export interface ToolCallEntry {
  id: string;
  kind: 'action' | 'mcp';
  name: string;
  /** As logged: secrets masked. */
  inputs: Record<string, unknown>;
  status: string;
  error: string | null;
  httpStatus: number | null;
  durationMs: number;
  fieldsRead: string[];
  createdAt: string | null;
}

export const TOOL_CALLS_FAILED_MESSAGE = 'The calls the bot made could not be loaded.';

/**
 * The calls the bot made in one conversation, oldest first: the actions' and the MCP tools' logs
 * read by the conversation's session (both need `conversations:read`); `enabled` false reads nothing.
 */
export function useConversationToolCalls(chatbotId: string, sessionId: string | null, enabled: boolean) {
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
}

/**
 * Each call under the answer it belongs to: the first bot answer stored at or after the call began
 * (a call's log row is claimed before its turn's answer is stored, ADR 60); a call after the last
 * answer (its turn still running, or failed) goes under the last one. Keyed by message index.
 */
export function callsByAnswer(
  messages: readonly { role: string; timestamp?: string | null }[],
  calls: readonly ToolCallEntry[],
): Map<number, ToolCallEntry[]> {
  const answers = messages.flatMap((m, i) => (m.role === 'assistant' && m.timestamp ? [{ i, at: Date.parse(m.timestamp) }] : []));
  const byAnswer = new Map<number, ToolCallEntry[]>();
  if (!answers.length) return byAnswer;
  for (const call of calls) {
    const at = call.createdAt ? Date.parse(call.createdAt) : Number.NaN;
    const answer = answers.find((a) => a.at >= at) ?? answers[answers.length - 1];
    byAnswer.set(answer.i, [...(byAnswer.get(answer.i) ?? []), call]);
  }
  return byAnswer;
}
