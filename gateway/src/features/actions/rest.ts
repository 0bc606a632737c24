// A chatbot's HTTP actions for its owner (docs/adr/0045-http-actions.md): thin REST calls to the
// chatbot service's ActionService (actions.ts), which owns every rule and message; the rows check
// the shapes only. Editing is the chatbot settings' permission (chatbots:write), reading
// workspace:read, the call log conversations:read, each row of this operation table
// (http/operations.ts) naming it:
//   GET    /api/chatbot/{id}/actions                      → [action]
//   POST   /api/chatbot/{id}/actions { definition }       → action (201)
//   PUT    /api/chatbot/{id}/actions/{actionId} { definition } → action
//   DELETE /api/chatbot/{id}/actions/{actionId}           → { message }
//   POST   /api/chatbot/{id}/actions/{actionId}/test { inputs } → { status, error, httpStatus, durationMs, request, result, fieldsRead }
//   GET    /api/chatbot/{id}/actions/calls?actionId&sessionId&limit → [call]
import { z } from 'zod';
import type { JsonObject } from '@bufbuild/protobuf';
import { ACTION_DELETED_MESSAGE, createAction, deleteAction, listActionCalls, listActions, testAction, updateAction } from './actions.ts';
import { operation, type Operation } from '../../http/operations.ts';
import { withPaths } from '../../http/input.ts';

const who = 'session';
const base = '/api/chatbot/:id/actions';

const text = z.string().max(20_000);
const pair = z.object({ name: text, value: text }).strict();
/** The shapes only: the chatbot service checks every rule and answers in the owner's words. */
const definition = z
  .object({
    name: text,
    whenToUse: text.default(''),
    inputs: z
      .array(
        z
          .object({
            name: text,
            type: text,
            description: text.default(''),
            required: z.boolean().default(false),
            enum: z.array(text).max(50).default([]),
            source: text.default('model'),
          })
          .strict(),
      )
      .max(20)
      .default([]),
    method: text,
    url: text,
    query: z.array(pair).max(20).default([]),
    headers: z.array(pair).max(20).default([]),
    body: text.default(''),
    secrets: z
      .array(z.object({ name: text, value: text.default('') }).strict())
      .max(10)
      .default([]),
    responseFields: z.array(text).max(30).default([]),
    timeoutMs: z.number().int().min(0).max(60_000).default(0),
    maxResponseBytes: z
      .number()
      .int()
      .min(0)
      .max(10 * 1024 * 1024)
      .default(0),
    confirm: z.boolean().optional(),
    identifiedOnly: z.boolean().default(false),
  })
  .strict();
const definitionBody = withPaths(z.object({ definition }).strict());
// No body is a test with no inputs.
const testBody = withPaths(
  z.preprocess((value) => value ?? {}, z.object({ inputs: z.record(z.string(), z.unknown()).default({}) }).strict()),
);
const callsQuery = withPaths(
  z.object({
    actionId: z.string().max(100).optional(),
    sessionId: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(200).optional(),
  }),
);

export const actionOperations: Operation[] = [
  operation({ method: 'GET', path: base, who, permission: 'workspace:read' }, async ({ app: { clients }, member, params }) =>
    listActions(clients, member, params.id),
  ),
  // The log holds what visitors asked for (the inputs): read as conversations are.
  operation(
    { method: 'GET', path: `${base}/calls`, who, permission: 'conversations:read', query: callsQuery },
    async ({ app: { clients }, member, params, query }) => listActionCalls(clients, member, params.id, query),
  ),
  operation(
    { method: 'POST', path: base, who, permission: 'chatbots:write', status: 201, body: definitionBody },
    async ({ app: { clients }, member, params, body }) => createAction(clients, member, params.id, body.definition),
  ),
  operation(
    { method: 'PUT', path: `${base}/:actionId`, who, permission: 'chatbots:write', body: definitionBody },
    async ({ app: { clients }, member, params, body }) => updateAction(clients, member, params.id, params.actionId, body.definition),
  ),
  operation(
    { method: 'DELETE', path: `${base}/:actionId`, who, permission: 'chatbots:write' },
    async ({ app: { clients }, member, params }) => {
      await deleteAction(clients, member, params.id, params.actionId);
      return { message: ACTION_DELETED_MESSAGE };
    },
  ),
  operation(
    { method: 'POST', path: `${base}/:actionId/test`, who, permission: 'chatbots:write', body: testBody },
    async ({ app: { clients }, member, params, body }) =>
      testAction(clients, member, params.id, params.actionId, body.inputs as JsonObject),
  ),
];
