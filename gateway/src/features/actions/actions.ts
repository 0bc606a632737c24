// A chatbot's HTTP actions as the gateway sees them (docs/adr/0045-http-actions.md): thin calls to
// the chatbot service's ActionService, which owns every rule and message, and their JSON views.
// Every change is recorded in the workspace's audit log. Secret values are write only: answers carry
// `hint` (last four characters).
import type { JsonObject } from '@bufbuild/protobuf';
import type { Action, ActionCall } from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';
import { actor } from '../workspaces/workspaces.ts';

export const ACTION_DELETED_MESSAGE = 'Action deleted';

/** An action's definition as the chatbot service takes it. */
export type ActionDefinitionInput = NonNullable<Parameters<Clients['actions']['createAction']>[0]['definition']>;

/** Which calls of the log to list. */
export interface ActionCallFilter {
  actionId?: string;
  sessionId?: string;
  limit?: number;
}

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
    createdAt: isoDate(a?.createdAt),
    updatedAt: isoDate(a?.updatedAt),
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
  createdAt: isoDate(c.createdAt),
});

const audit = (clients: Clients, m: Member, action: string, chatbotId: string, details: object) =>
  clients.workspaces.recordAuditEvent({ actor: actor(m), action, target: chatbotId, detailsJson: JSON.stringify(details) });

export async function listActions(clients: Clients, m: Member, chatbotId: string) {
  const { actions } = await clients.actions.listActions({ ownerId: m.ownerId, chatbotId });
  return actions.map(actionView);
}

export async function listActionCalls(clients: Clients, m: Member, chatbotId: string, filter: ActionCallFilter) {
  const { calls } = await clients.actions.listActionCalls({ ownerId: m.ownerId, chatbotId, ...filter });
  return calls.map(callView);
}

export async function createAction(clients: Clients, m: Member, chatbotId: string, definition: ActionDefinitionInput) {
  const { action } = await clients.actions.createAction({ ownerId: m.ownerId, chatbotId, definition });
  await audit(clients, m, 'chatbot.action_created', chatbotId, { actionId: action?.id, name: action?.definition?.name });
  return actionView(action);
}

export async function updateAction(clients: Clients, m: Member, chatbotId: string, actionId: string, definition: ActionDefinitionInput) {
  const { action } = await clients.actions.updateAction({ ownerId: m.ownerId, chatbotId, actionId, definition });
  await audit(clients, m, 'chatbot.action_changed', chatbotId, { actionId: action?.id, name: action?.definition?.name });
  return actionView(action);
}

export async function deleteAction(clients: Clients, m: Member, chatbotId: string, actionId: string): Promise<void> {
  await clients.actions.deleteAction({ ownerId: m.ownerId, chatbotId, actionId });
  await audit(clients, m, 'chatbot.action_deleted', chatbotId, { actionId });
}

/** One trial call of the action with these inputs, as the owner's test panel shows it. */
export async function testAction(clients: Clients, m: Member, chatbotId: string, actionId: string, inputs: JsonObject) {
  const o = await clients.actions.testAction({ ownerId: m.ownerId, chatbotId, actionId, inputs });
  return {
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
  };
}
