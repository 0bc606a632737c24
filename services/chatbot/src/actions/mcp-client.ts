// Speaking to one remote MCP server (docs/adr/0055-mcp-tools-and-built-in-tools.md) with the official
// SDK's client over Streamable HTTP — never stdio: a server is an address, never a program Parley
// starts. Every request goes through the one outbound guard (guardedFetch: the address pinned,
// private ranges refused unless the operator allowed them, redirects checked, the body capped), under
// one deadline for connecting and the call. A session lasts one operation: connect, list or call, close.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OutboundPolicy } from '@parley/common/outbound/guard.ts';
import { guardedFetch } from '@parley/common/outbound/guarded-fetch.ts';
import { outboundUrl } from '@parley/common/outbound/request.ts';

export interface McpEndpoint {
  url: string;
  /** Sent with every request (the secret, opened only here). */
  headers: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
}

/** A failure in the owner's and the model's words; `refused` when the guard refused the address. */
export class McpFailure extends Error {
  readonly refused: boolean;
  constructor(message: string, refused = false) {
    super(message);
    this.refused = refused;
  }
}

/** The most pages of tools read from one server. */
const MAX_TOOL_PAGES = 5;

// The SDK's client (with ajv and zod's JSON schemas, ≈ 130 modules) is loaded with the first MCP
// server's call, not when the service starts (docs/adr/0068-memory-at-rest.md).
let sdkLoading:
  | Promise<
      [typeof import('@modelcontextprotocol/sdk/client/index.js'), typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')]
    >
  | undefined;
const mcpClientSdk = () =>
  (sdkLoading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]));

async function withClient<T>(
  endpoint: McpEndpoint,
  policy: OutboundPolicy,
  use: (client: Client, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const url = outboundUrl(endpoint.url, policy);
  const [{ Client }, { StreamableHTTPClientTransport }] = await mcpClientSdk();
  const guarded = guardedFetch(policy, { maxBytes: endpoint.maxBytes });
  const signal = AbortSignal.timeout(endpoint.timeoutMs);
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: guarded.fetch,
    requestInit: { headers: { ...endpoint.headers, 'user-agent': 'ParleyBot/1.0 (+https://parley.example/bot)' }, redirect: 'manual' },
  });
  const client = new Client({ name: 'parley', version: '1.0.0' });
  const options = { signal, timeout: endpoint.timeoutMs, maxTotalTimeout: endpoint.timeoutMs };
  try {
    await client.connect(transport, options);
    return await use(client, signal);
  } catch (err) {
    if (err instanceof McpFailure) throw err;
    const failure = guarded.lastFailure();
    if (failure) throw new McpFailure(failure.message, failure.failure === 'address' || failure.failure === 'scheme');
    if (signal.aborted) throw new McpFailure(`No complete answer within ${endpoint.timeoutMs} ms`);
    throw new McpFailure(`The MCP server failed: ${describe(err)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** An SDK error's message, bounded (it may quote the server). */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, ' ').slice(0, 300);
}

/** The server's tools, up to `max` of them (pages read until then). */
export async function listServerTools(endpoint: McpEndpoint, policy: OutboundPolicy, max: number): Promise<Tool[]> {
  return withClient(endpoint, policy, async (client, signal) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES && tools.length < max; page++) {
      const listed = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: endpoint.timeoutMs });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return tools;
  });
}

/** One call of a tool; a tool's own error comes back as isError, as the server said it. */
export async function callServerTool(
  endpoint: McpEndpoint,
  policy: OutboundPolicy,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return withClient(endpoint, policy, async (client, signal) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { signal, timeout: endpoint.timeoutMs });
    return result as CallToolResult;
  });
}
