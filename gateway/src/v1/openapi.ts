// The developer API's OpenAPI 3.1 document (GET /api/v1/openapi.json), built from routes.ts's table
// and the zod schemas that validate the requests (schemas.ts), so it cannot drift from what the API
// does. OpenAPI 3.1's schemas are JSON Schema 2020-12, which z.toJSONSchema writes; every schema
// with an id is one component, referenced by the operations. Each operation names its scope (in its
// description and as x-parley-scope). Its `webhooks` are the events a workspace's endpoints receive,
// from the one catalogue that also checks what the services publish (webhook-events.ts).
import { z } from 'zod';
import { API_SCOPES } from '@parley/common/api-scopes.ts';
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from '@parley/common/webhook-events.ts';
import { API_V1_PREFIX, API_V1_ROUTES, type ApiRoute } from './routes.ts';
import './schemas.ts';

type Json = Record<string, unknown>;

const ERRORS: Record<string, string> = {
  400: 'The request is not valid (invalid_request)',
  401: 'No key, or one that does not work: unknown, revoked, expired, or rolled past its overlap (unauthenticated)',
  403: 'The key lacks the scope, or the plan does not allow it (forbidden)',
  404: 'No such chatbot, entry, conversation, webhook endpoint or delivery for this key (not_found)',
  429: 'The key made too many calls, or too many keys that do not work came from this address; see Retry-After (rate_limited); or a chatbot limit was reached',
};

/** The refusals of a body, for the operations that take one. */
const BODY_ERRORS: Record<string, string> = {
  413: 'The body is too large (payload_too_large)',
  415: 'The body is not of the type the operation takes (unsupported_media_type)',
};

const componentRef = (schema: z.ZodType): Json => {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a schema of the developer API has no id');
  return { $ref: `#/components/schemas/${id}` };
};

/** A field's schema without the keywords a component of its own would carry. */
function inline(schema: z.ZodType): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Json;
  return rest;
}

function operation(key: string, spec: ApiRoute): Json {
  const path = key.split(' ')[1];
  const parameters: Json[] = [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  for (const [name, field] of Object.entries(spec.query?.shape ?? {})) {
    const schema = field as z.ZodType;
    parameters.push({ name, in: 'query', required: !schema.safeParse(undefined).success, schema: inline(schema) });
  }
  const responses: Json = {
    [spec.status]: {
      description: 'Success',
      content: {
        'application/json': { schema: componentRef(spec.response) },
        ...(spec.streams ? { 'text/event-stream': { schema: { type: 'string' } } } : {}),
      },
    },
  };
  const [method] = key.split(' ');
  const takesBody = spec.body !== undefined && method !== 'GET';
  for (const [status, description] of Object.entries({ ...ERRORS, ...(takesBody ? BODY_ERRORS : {}) }))
    responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  return {
    operationId: operationId(key),
    summary: spec.summary,
    description: `Scope: \`${spec.scope}\` (${API_SCOPES[spec.scope]})`,
    'x-parley-scope': spec.scope,
    tags: [tagOf(path)],
    security: [{ apiKey: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body && takesBody
      ? {
          requestBody: {
            required: true,
            content: { [spec.multipart ? 'multipart/form-data' : 'application/json']: { schema: componentRef(spec.body) } },
          },
        }
      : {}),
    responses,
  };
}

const tagOf = (path: string) =>
  path.includes('/openai/')
    ? 'OpenAI-compatible'
    : path.includes('/usage')
      ? 'Usage'
      : path.startsWith(`${API_V1_PREFIX}/webhooks`)
        ? 'Webhook endpoints'
        : path === `${API_V1_PREFIX}/mcp`
          ? 'MCP'
          : 'Chatbots';

/** `POST /api/v1/chatbots/:id/knowledge/qa` → `postChatbotsIdKnowledgeQa`; `roll-secret` → `RollSecret`. */
const operationId = (key: string) => {
  const [method, path] = key.split(' ');
  const words = path
    .slice(API_V1_PREFIX.length)
    .split(/[/:.-]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
};

export function openApiDocument(publicUrl: string): Json {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  const components: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema;
    components[id] = rest;
  }
  const paths: Record<string, Json> = {};
  for (const [key, spec] of Object.entries(API_V1_ROUTES) as [string, ApiRoute][]) {
    const [method, path] = key.split(' ');
    const templated = path.replace(/:(\w+)/g, '{$1}');
    (paths[templated] ??= {})[method.toLowerCase()] = operation(key, spec);
  }
  return {
    openapi: '3.1.0',
    webhooks: webhooksSection(),
    info: {
      title: 'Parley developer API',
      version: '1.0.0',
      description:
        'Chatbots, their knowledge, chat, conversations, usage and webhook endpoints of one workspace, with an API key (docs/api.md). Errors are `{ "error": { "code", "message" } }`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Parley' },
    },
    servers: [{ url: new URL(API_V1_PREFIX, publicUrl).toString() }],
    tags: [
      { name: 'Chatbots', description: 'Chatbots, knowledge, chat and conversations.' },
      { name: 'Usage', description: "The workspace's usage and cost." },
      { name: 'OpenAI-compatible', description: "OpenAI's chat completions, a chatbot as the model." },
      { name: 'MCP', description: 'Every chatbot as a tool of an MCP client (Model Context Protocol, Streamable HTTP).' },
      {
        name: 'Webhook endpoints',
        description: "The workspace's webhook endpoints, their signing secrets and delivery logs (the events are under Webhooks).",
      },
      {
        name: 'Webhooks',
        description:
          'Events POSTed to the endpoints a workspace registers, signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). Deduplicate on webhook-id; any 2xx acknowledges, anything else is retried for about a day.',
      },
    ],
    security: [{ apiKey: [] }],
    paths: Object.fromEntries(Object.entries(paths).map(([p, ops]) => [p.slice(API_V1_PREFIX.length), ops])),
    components: {
      schemas: components,
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: parley_sk_…' } },
    },
  };
}

/** One entry per event type: the envelope `{type, version, timestamp, data}` with the type's data schema and example. */
function webhooksSection(): Record<string, Json> {
  const header = (name: string, description: string): Json => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const event = WEBHOOK_EVENTS[type];
      return [
        type,
        {
          post: {
            operationId: `webhook_${type.replace(/\W/g, '_')}`,
            summary: type,
            description: event.description,
            tags: ['Webhooks'],
            security: [],
            parameters: [
              header('webhook-id', 'The delivery id: the same on every attempt and redelivery of this event to this endpoint.'),
              header('webhook-timestamp', 'Unix seconds when this attempt was signed.'),
              header('webhook-signature', "v1,<base64 HMAC-SHA256 of `id.timestamp.body` with the endpoint's secret>"),
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['type', 'version', 'timestamp', 'data'],
                    properties: {
                      type: { const: type },
                      version: { const: event.version },
                      timestamp: { type: 'string', format: 'date-time' },
                      data: event.schema,
                    },
                  },
                  example: { type, version: event.version, timestamp: '2026-01-15T09:30:00.000Z', data: event.example },
                },
              },
            },
            responses: {
              '200': { description: 'Received: any 2xx answer acknowledges the delivery.' },
              '400': { description: 'Any other answer (or none within the timeout) is a failed attempt, retried with backoff.' },
            },
          },
        },
      ];
    }),
  );
}
