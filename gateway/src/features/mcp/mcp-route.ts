// Every chatbot as an MCP server: POST /api/v1/mcp (docs/api.md, "MCP server"; ADR 46). The route is
// one of the developer API's table (routes.ts), so the key, its rate limit, the body's size and type,
// and the `mcp` scope are checked before this handler, in the table's one order. Each request is
// answered by a server of its own, with the official SDK's Streamable HTTP transport in stateless
// mode (no session to keep between requests, so any replica answers any request) and JSON
// responses. The tools are those of the chatbots the key reaches (tools.ts); `ask` goes through the
// chat service's SendMessage as POST /chatbots/{id}/chat does (the same credit hold, billing, rate
// and day limits, the cost attributed to the key), and `search_knowledge` through the chatbot
// service's retrieval (GetPromptKnowledge with no whole-knowledge budget: the chunks retrieval
// ranks best), with no model call. A failure of a tool is the tool's error (isError, the reason as
// the API words it), never a failure of the request.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Request, RequestHandler, Response } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { answerSources } from '../conversations/conversations.ts';
import { mapError } from '../../http/errors.ts';
import { clientGone } from '../../http/answer-stream.ts';
import { answerUsage } from '../../v1/chat.ts';
import { keyReaches, type ApiV1Options, type On } from '../../v1/call.ts';
import type { ApiKeyCaller } from '../../access/api-keys.ts';
import {
  AskInput,
  AskOutput,
  chatbotTools,
  DEFAULT_RESULTS,
  SearchInput,
  SearchOutput,
  shownName,
  type ChatbotTools,
  type ToolChatbot,
} from './tools.ts';

export const MCP_SERVER_NAME = 'parley';
export const MCP_SERVER_VERSION = '1.0.0';
export const MCP_POST_ONLY = 'The MCP endpoint answers POST only (Streamable HTTP, stateless: no event stream, no session to end).';
export const HANDED_TO_A_PERSON =
  'A person from the team has this conversation: the message was passed on to them, and the bot does not answer it.';
export const INSTRUCTIONS =
  "Parley's chatbots, each answering from its own knowledge base. ask_<chatbot> asks one a question (an answer with its " +
  'sources, billed like a chat message); search_knowledge_<chatbot> returns the passages of its knowledge that best ' +
  'match a query, with their sources, at no cost.';

interface ToolCall {
  req: Request;
  res: Response;
  key: ApiKeyCaller;
  signal: AbortSignal;
}

// The SDK's server (with ajv and zod's JSON schemas, ≈ 130 modules) is loaded with the first MCP
// request, not when the gateway starts (docs/adr/0068-memory-at-rest.md).
type McpServerSdk = [
  typeof import('@modelcontextprotocol/sdk/server/mcp.js'),
  typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
];
let sdkLoading: Promise<McpServerSdk> | undefined;
const mcpServerSdk = () =>
  (sdkLoading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]));

export function mcpRoutes(on: On, opts: ApiV1Options): void {
  const { clients } = opts;
  on('POST /api/v1/mcp', async ({ req, res, key, ownerId, body }) => {
    const { chatbots } = await clients.chatbot.listChatbots({ ownerId, includeKnowledgeBase: false });
    const reachable = chatbots
      .filter((c) => keyReaches(key, c.id))
      .map((c): ToolChatbot => ({ id: c.id, uniqueId: c.uniqueId, name: c.name }));
    const [sdk, { StreamableHTTPServerTransport }] = await mcpServerSdk();
    const server = mcpServer(sdk.McpServer, chatbotTools(reachable), { req, res, key, signal: clientGone(res) }, opts);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
}

/** Answers every other method on the endpoint: 405 with Allow, which MCP clients read as "no event stream here". */
export const mcpOtherMethods: RequestHandler = (req, res, next) => {
  if (req.method === 'POST') return next();
  res
    .status(405)
    .setHeader('Allow', 'POST')
    .json({ error: { code: 'method_not_allowed', message: MCP_POST_ONLY } });
};

function mcpServer(Server: typeof McpServer, tools: ChatbotTools[], call: ToolCall, opts: ApiV1Options): McpServer {
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { instructions: INSTRUCTIONS });
  for (const tool of tools) {
    const name = shownName(tool.chatbot.name);
    server.registerTool(
      tool.ask,
      {
        title: `Ask ${name}`,
        description: `Ask the chatbot "${name}" a question: it answers from its knowledge base, citing its sources. Each answer is billed to the workspace like a chat message.`,
        inputSchema: AskInput,
        outputSchema: AskOutput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      (args, extra) => ask(tool.chatbot, args, { ...call, signal: AbortSignal.any([call.signal, extra.signal]) }, opts),
    );
    server.registerTool(
      tool.searchKnowledge,
      {
        title: `Search ${name}'s knowledge`,
        description: `Search the knowledge base of the chatbot "${name}": the passages that best match the query, each with its source. No model is called and nothing is billed.`,
        inputSchema: SearchInput,
        outputSchema: SearchOutput,
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      (args) => searchKnowledge(tool.chatbot, args, opts),
    );
  }
  // A key that reaches no chatbot still lists tools (none) rather than lacking the method.
  if (tools.length === 0) server.registerTool('none', { description: 'none' }, () => ({ content: [] })).remove();
  return server;
}

async function ask(
  chatbot: ToolChatbot,
  args: { message: string; conversationId?: string },
  { req, key, signal }: ToolCall,
  opts: ApiV1Options,
): Promise<CallToolResult> {
  try {
    const reply = await opts.clients.chat.sendMessage(
      {
        uniqueId: chatbot.uniqueId,
        sessionId: args.conversationId ?? '',
        message: args.message,
        model: '',
        clientIp: clientIp(req),
        userAgent: req.get('user-agent') ?? '',
        apiKeyId: key.apiKeyId,
      },
      { timeoutMs: opts.chatTimeoutMs, signal },
    );
    const sources = answerSources(reply.sources);
    const answer = reply.message || (reply.handoff ? HANDED_TO_A_PERSON : '');
    const cited = sources.map((s, i) => `[${i + 1}] ${s.title}${s.url ? ` (${s.url})` : ''}`);
    return {
      content: [{ type: 'text', text: cited.length ? `${answer}\n\nSources:\n${cited.join('\n')}` : answer }],
      structuredContent: { answer, conversationId: reply.sessionId, sources, usage: answerUsage(reply) },
    };
  } catch (err) {
    return toolError(err, opts.logger);
  }
}

async function searchKnowledge(chatbot: ToolChatbot, args: { query: string; limit?: number }, opts: ApiV1Options): Promise<CallToolResult> {
  try {
    const found = await opts.clients.chatbot.getPromptKnowledge(
      { uniqueId: chatbot.uniqueId, query: args.query, budgetChars: 0, k: args.limit ?? DEFAULT_RESULTS },
      { timeoutMs: opts.chatTimeoutMs },
    );
    const passages = found.knowledge.map((p) => ({
      text: p.text,
      source: p.url ? { entryId: p.entryId, title: p.title, url: p.url } : { entryId: p.entryId, title: p.title },
    }));
    // An owner-written answer to this very question comes first, as the chat would answer it.
    if (found.qaMatch)
      passages.unshift({
        text: `Q: ${found.qaMatch.question}\nA: ${found.qaMatch.answer}`,
        source: { entryId: found.qaMatch.entryId, title: found.qaMatch.question },
      });
    const text = passages.length
      ? passages.map((p, i) => `[${i + 1}] ${p.source.title}${p.source.url ? ` (${p.source.url})` : ''}\n${p.text}`).join('\n\n')
      : 'No passage of the knowledge base matches the query.';
    return { content: [{ type: 'text', text }], structuredContent: { passages } };
  } catch (err) {
    return toolError(err, opts.logger);
  }
}

/** A failed call as the tool's error, in the words the API gives it (an unexpected failure is logged and said generically). */
function toolError(err: unknown, logger: Logger): CallToolResult {
  const { message } = mapError(err, logger);
  return { isError: true, content: [{ type: 'text', text: message }] };
}
