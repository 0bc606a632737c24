// The MCP endpoint's body and answer as the OpenAPI document shows them (routes.ts): one JSON-RPC 2.0
// message per request. The transport reads the message itself (a malformed one is its JSON-RPC error);
// this schema only refuses what is no JSON-RPC message at all.
import { z } from 'zod';

export const McpRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z
      .union([z.string().max(200), z.number()])
      .optional()
      .meta({ description: 'Absent for a notification (answered 202, no body).' }),
    method: z.string().max(200).optional().meta({ description: 'initialize, tools/list, tools/call, ping, notifications/…' }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .loose()
  .meta({
    id: 'McpRequest',
    description:
      'A JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP). Send "Accept: application/json, text/event-stream"; the answer is JSON.',
    examples: [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_knowledge_shop', arguments: { query: 'opening hours' } } },
    ],
  });

export const McpResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number(), message: z.string() }).optional(),
  })
  .meta({
    id: 'McpResponse',
    description: 'The JSON-RPC answer. A tool that failed answers a result with isError: true and the reason as its text.',
  });
