// The ActionService (proto/parley/chatbot/v1/actions.proto): maps proto ⇄ the action use cases
// (actions.ts), nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ActionCallSchema,
  ActionDefinitionSchema,
  ActionInputSchema,
  ActionPairSchema,
  ActionSchema,
  ActionSecretSchema,
  ActionService,
  ActionToolSchema,
  type ActionDefinition as ActionDefinitionMessage,
} from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { ActionDefinition, ActionDefinitionInput } from './action-definition-schema.ts';
import {
  createAction,
  deleteAction,
  listActionCalls,
  listActions,
  runChatAction,
  testAction,
  updateAction,
  type ActionDeps,
  type ActionView,
} from './actions.ts';

const inputMessage = (i: ActionDefinition['inputs'][number]) =>
  create(ActionInputSchema, {
    name: i.name,
    type: i.type,
    description: i.description,
    required: i.required,
    enum: i.enum ?? [],
    source: i.source,
  });

export const toActionToolMessage = (d: ActionDefinition) =>
  create(ActionToolSchema, {
    name: d.name,
    whenToUse: d.whenToUse,
    inputs: d.inputs.map(inputMessage),
    confirm: d.confirm,
    identifiedOnly: d.identifiedOnly,
    method: d.method,
  });

const toActionMessage = (a: ActionView) =>
  create(ActionSchema, {
    id: a.id,
    chatbotId: a.chatbotId,
    definition: create(ActionDefinitionSchema, {
      name: a.name,
      whenToUse: a.whenToUse,
      inputs: a.inputs.map(inputMessage),
      method: a.method,
      url: a.url,
      query: a.query.map((q) => create(ActionPairSchema, q)),
      headers: a.headers.map((h) => create(ActionPairSchema, h)),
      body: a.body,
      secrets: a.secrets.map((s) => create(ActionSecretSchema, { name: s.name, hint: s.hint })),
      responseFields: a.responseFields,
      timeoutMs: a.timeoutMs,
      maxResponseBytes: a.maxResponseBytes,
      confirm: a.confirm,
      identifiedOnly: a.identifiedOnly,
    }),
    createdAt: timestampFromDate(a.createdAt),
    updatedAt: timestampFromDate(a.updatedAt),
  });

/** The proto definition as the use cases' input (0 and unset mean the defaults). */
function definitionInput(d: ActionDefinitionMessage | undefined): ActionDefinitionInput {
  if (!d) throw invalid('The action is missing');
  return {
    name: d.name,
    whenToUse: d.whenToUse,
    inputs: d.inputs.map((i) => ({
      name: i.name,
      type: i.type as ActionDefinition['inputs'][number]['type'],
      description: i.description,
      required: i.required,
      enum: i.enum.length ? i.enum : undefined,
      source: (i.source || 'model') as ActionDefinition['inputs'][number]['source'],
    })),
    method: d.method as ActionDefinition['method'],
    url: d.url,
    query: d.query.map((q) => ({ name: q.name, value: q.value })),
    headers: d.headers.map((h) => ({ name: h.name, value: h.value })),
    body: d.body,
    secrets: d.secrets.map((s) => ({ name: s.name, value: s.value })),
    responseFields: d.responseFields,
    timeoutMs: d.timeoutMs || undefined,
    maxResponseBytes: d.maxResponseBytes || undefined,
    confirm: d.confirm,
    identifiedOnly: d.identifiedOnly,
  };
}

export function actionRoutes(deps: ActionDeps) {
  return (router: ConnectRouter) => {
    router.service(ActionService, {
      async createAction(req) {
        const ref = { ownerId: req.ownerId, chatbotId: req.chatbotId };
        return { action: toActionMessage(await createAction(deps, ref, definitionInput(req.definition))) };
      },
      async listActions(req) {
        return { actions: (await listActions(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId })).map(toActionMessage) };
      },
      async updateAction(req) {
        const ref = { ownerId: req.ownerId, chatbotId: req.chatbotId };
        return { action: toActionMessage(await updateAction(deps, ref, req.actionId, definitionInput(req.definition))) };
      },
      async deleteAction(req) {
        await deleteAction(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId }, req.actionId);
        return {};
      },
      async testAction(req) {
        const o = await testAction(
          deps,
          { ownerId: req.ownerId, chatbotId: req.chatbotId },
          req.actionId,
          (req.inputs ?? {}) as JsonObject,
        );
        return {
          status: o.status,
          error: o.error,
          httpStatus: o.httpStatus,
          durationMs: o.durationMs,
          request: o.request,
          result: o.result,
          fieldsRead: o.fieldsRead,
        };
      },
      async listActionCalls(req) {
        const calls = await listActionCalls(
          deps,
          { ownerId: req.ownerId, chatbotId: req.chatbotId },
          { actionId: req.actionId || undefined, sessionId: req.sessionId || undefined, limit: req.limit || undefined },
        );
        return {
          calls: calls.map((c) =>
            create(ActionCallSchema, { ...c, inputs: c.inputs as JsonObject, createdAt: timestampFromDate(c.createdAt) }),
          ),
        };
      },
      async runAction(req) {
        if (!req.callKey || req.callKey.length > 200) throw invalid('A call key is required');
        const o = await runChatAction(deps, {
          chatbotId: req.chatbotId,
          actionName: req.actionName,
          sessionId: req.sessionId,
          args: (req.arguments ?? {}) as JsonObject,
          callKey: req.callKey,
          visitor: req.visitor?.userId ? { userId: req.visitor.userId, email: req.visitor.email } : undefined,
        });
        return o;
      },
    });
  };
}
