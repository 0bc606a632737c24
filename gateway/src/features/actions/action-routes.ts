// A chatbot's HTTP actions for its owner (docs/adr/0045-http-actions.md): thin REST calls to the
// chatbot service's ActionService, which owns every rule and message. Editing is the chatbot
// settings' permission (chatbots:write), reading workspace:read; every change is recorded in the
// workspace's audit log. Secret values are write only: answers carry `hint` (last four characters).
//   GET    /api/chatbot/{id}/actions                      → [action]
//   POST   /api/chatbot/{id}/actions { definition }       → action (201)
//   PUT    /api/chatbot/{id}/actions/{actionId} { definition } → action
//   DELETE /api/chatbot/{id}/actions/{actionId}           → { message }
//   POST   /api/chatbot/{id}/actions/{actionId}/test { inputs } → { status, error, httpStatus, durationMs, request, result, fieldsRead }
//   GET    /api/chatbot/{id}/actions/calls?actionId&sessionId&limit → [call]
import { Router, type Request } from 'express';
import { z } from 'zod';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Action, ActionCall } from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import type { Clients } from '../../http/clients.ts';
import { routeMember, type Member } from '../../access/members.ts';

export const ACTION_DELETED_MESSAGE = 'Action deleted';

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

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
  }
  return parsed.data;
}

const bodyDefinition = (req: Request) => parse(z.object({ definition }).strict(), req.body).definition;

export const actionView = (a: Action | undefined) => {
  const d = a?.definition;
  return {
    id: a?.id ?? '',
    chatbotId: a?.chatbotId ?? '',
    name: d?.name ?? '',
    whenToUse: d?.whenToUse ?? '',
    inputs: (d?.inputs ?? []).map((i) => ({
      name: i.name,
      type: i.type,
      description: i.description,
      required: i.required,
      enum: [...i.enum],
      source: i.source,
    })),
    method: d?.method ?? '',
    url: d?.url ?? '',
    query: (d?.query ?? []).map((q) => ({ name: q.name, value: q.value })),
    headers: (d?.headers ?? []).map((h) => ({ name: h.name, value: h.value })),
    body: d?.body ?? '',
    secrets: (d?.secrets ?? []).map((s) => ({ name: s.name, hint: s.hint })),
    responseFields: [...(d?.responseFields ?? [])],
    timeoutMs: d?.timeoutMs ?? 0,
    maxResponseBytes: d?.maxResponseBytes ?? 0,
    confirm: d?.confirm ?? false,
    identifiedOnly: d?.identifiedOnly ?? false,
    createdAt: a?.createdAt ? timestampDate(a.createdAt).toISOString() : null,
    updatedAt: a?.updatedAt ? timestampDate(a.updatedAt).toISOString() : null,
  };
};

const callView = (c: ActionCall) => ({
  id: c.id,
  actionId: c.actionId,
  actionName: c.actionName,
  sessionId: c.sessionId,
  source: c.source,
  inputs: c.inputs ?? {},
  status: c.status,
  error: c.error || null,
  httpStatus: c.httpStatus || null,
  durationMs: c.durationMs,
  fieldsRead: [...c.fieldsRead],
  createdAt: c.createdAt ? timestampDate(c.createdAt).toISOString() : null,
});

async function audit(clients: Clients, m: Member, action: string, chatbotId: string, details: object): Promise<void> {
  await clients.workspaces.recordAuditEvent({
    actor: { userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp },
    action,
    target: chatbotId,
    detailsJson: JSON.stringify(details),
  });
}

/** Mounted under /api/chatbot, beside the chatbot routes (the permission table names the full paths). */
export function actionRoutes(clients: Clients): Router {
  const router = Router();
  router.get('/:id/actions', async (req, res) => {
    const m = await routeMember(clients, req);
    const { actions } = await clients.actions.listActions({ ownerId: m.ownerId, chatbotId: req.params.id });
    res.json(actions.map(actionView));
  });
  router.get('/:id/actions/calls', async (req, res) => {
    const m = await routeMember(clients, req);
    const q = parse(
      z.object({
        actionId: z.string().max(100).optional(),
        sessionId: z.string().max(200).optional(),
        limit: z.coerce.number().int().min(1).max(200).optional(),
      }),
      req.query,
    );
    const { calls } = await clients.actions.listActionCalls({ ownerId: m.ownerId, chatbotId: req.params.id, ...q });
    res.json(calls.map(callView));
  });
  router.post('/:id/actions', async (req, res) => {
    const m = await routeMember(clients, req);
    const { action } = await clients.actions.createAction({
      ownerId: m.ownerId,
      chatbotId: req.params.id,
      definition: bodyDefinition(req),
    });
    await audit(clients, m, 'chatbot.action_created', req.params.id, { actionId: action?.id, name: action?.definition?.name });
    res.status(201).json(actionView(action));
  });
  router.put('/:id/actions/:actionId', async (req, res) => {
    const m = await routeMember(clients, req);
    const { action } = await clients.actions.updateAction({
      ownerId: m.ownerId,
      chatbotId: req.params.id,
      actionId: req.params.actionId,
      definition: bodyDefinition(req),
    });
    await audit(clients, m, 'chatbot.action_changed', req.params.id, { actionId: action?.id, name: action?.definition?.name });
    res.json(actionView(action));
  });
  router.delete('/:id/actions/:actionId', async (req, res) => {
    const m = await routeMember(clients, req);
    await clients.actions.deleteAction({ ownerId: m.ownerId, chatbotId: req.params.id, actionId: req.params.actionId });
    await audit(clients, m, 'chatbot.action_deleted', req.params.id, { actionId: req.params.actionId });
    res.json({ message: ACTION_DELETED_MESSAGE });
  });
  router.post('/:id/actions/:actionId/test', async (req, res) => {
    const m = await routeMember(clients, req);
    const { inputs } = parse(z.object({ inputs: z.record(z.string(), z.unknown()).default({}) }).strict(), req.body ?? {});
    const o = await clients.actions.testAction({
      ownerId: m.ownerId,
      chatbotId: req.params.id,
      actionId: req.params.actionId,
      inputs: inputs as JsonObject,
    });
    res.json({
      status: o.status,
      error: o.error || null,
      httpStatus: o.httpStatus || null,
      durationMs: o.durationMs,
      request: {
        method: o.request?.method ?? '',
        url: o.request?.url ?? '',
        headers: { ...o.request?.headers },
        body: o.request?.body ?? '',
      },
      result: o.result,
      fieldsRead: [...o.fieldsRead],
    });
  });
  return router;
}
