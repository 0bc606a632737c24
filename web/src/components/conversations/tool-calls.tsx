import { cn } from '../../lib/cn';

/** One tool call of a conversation as members read it: an HTTP action's or an MCP tool's, from their logs. */
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

/**
 * Where a page reads a conversation's calls from, given by the app's routes (the chatbots feature's
 * hook) so the inbox shows them without importing that feature; `enabled` false reads nothing.
 */
export type ToolCallsSource = (
  chatbotId: string,
  sessionId: string | null,
  enabled: boolean,
) => { calls: ToolCallEntry[]; error: string | null };

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

const STATUS_STYLE: Record<string, string> = {
  ok: 'bg-green-50 text-green-700 ring-green-200',
  refused: 'bg-amber-50 text-amber-800 ring-amber-200',
};

/**
 * The calls the bot made for one answer, wherever members read a conversation (a chatbot's History,
 * the inbox): name, kind, status, duration, inputs as logged (secrets masked), the fields it read.
 */
export function ToolCalls({ calls, className }: { calls: readonly ToolCallEntry[]; className?: string }) {
  return (
    <ul aria-label="Calls the bot made" className={cn('mt-2 w-full max-w-md space-y-1.5', className)}>
      {calls.map((c) => (
        <li key={`${c.kind}:${c.id}`} className="rounded-lg border border-gray-200 bg-white px-3 py-2 text-xs text-gray-700">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span className="font-mono font-medium text-gray-900">{c.name}</span>
            <span className="rounded bg-gray-100 px-1.5 py-0.5 text-[10px] font-medium text-gray-600">
              {c.kind === 'mcp' ? 'MCP tool' : 'Action'}
            </span>
            <span
              className={cn(
                'rounded-full px-2 py-0.5 text-[10px] font-medium ring-1 ring-inset',
                STATUS_STYLE[c.status] ?? 'bg-red-50 text-red-700 ring-red-200',
              )}
            >
              {c.status}
              {c.httpStatus ? ` · HTTP ${c.httpStatus}` : ''}
            </span>
            <span className="text-gray-500">{c.durationMs} ms</span>
          </div>
          <dl className="mt-1.5 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5">
            <dt className="text-gray-500">Inputs</dt>
            <dd className="font-mono break-all">{Object.keys(c.inputs).length ? JSON.stringify(c.inputs) : '—'}</dd>
            <dt className="text-gray-500">Fields read</dt>
            <dd className="font-mono break-all">{c.fieldsRead.join(', ') || '—'}</dd>
            {c.error ? (
              <>
                <dt className="text-gray-500">Error</dt>
                <dd className="break-words">{c.error}</dd>
              </>
            ) : null}
          </dl>
        </li>
      ))}
    </ul>
  );
}
