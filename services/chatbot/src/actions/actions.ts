// The owner's HTTP actions of a chatbot (docs/adr/0045-http-actions.md): add, change, list,
// delete, test, and the run a visitor's confirmed or read-only tool call makes. Secrets are sealed
// at rest under ACTION_SECRET_ENCRYPTION_KEY bound to the action's id (common/sealed-secret.ts) and
// opened only to build the outgoing request; the owner sees their last four characters. Every run
// is logged (ActionCall) with its inputs masked; a run with a caller's key runs once, whatever the
// retries (the key is unique: a second run with it answers the first one's outcome).
import { randomUUID } from 'node:crypto';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { open, seal } from '@parley/common/sealed-secret.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { OutboundPolicy } from '@parley/common/outbound/guard.ts';
import { OutboundError, outboundUrl } from '@parley/common/outbound/request.ts';
import type { ActionCall, ChatbotAction, Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { findOwnedChatbot, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import { ActionDefinitionError, fill, MAX_ACTIONS_PER_CHATBOT } from './action-definition.ts';
import type { ActionDefinition, ActionDefinitionInput } from './action-definition-schema.ts';
import { MASK, runAction, type ActionOutcome } from './run-action.ts';

export const ACTION_NOT_FOUND = 'Action not found';
export const ACTION_NAME_TAKEN = 'This chatbot already has an action with that name';
export const TOO_MANY_ACTIONS = `A chatbot may have at most ${MAX_ACTIONS_PER_CHATBOT} actions`;

export interface ActionDeps {
  db: PrismaClient;
  policy: OutboundPolicy;
  /** ACTION_SECRET_ENCRYPTION_KEY. */
  secretKey: Buffer;
  /** Bumps the chatbot's public revision: the chat service reads the actions as tools with the chatbot. */
  publicChanged: (chatbotId: string) => Promise<void>;
}

/** An action as the owner sees it: the definition with each secret's last four characters only. */
export interface ActionView extends Omit<ActionDefinition, 'secrets'> {
  id: string;
  chatbotId: string;
  secrets: { name: string; hint: string }[];
  createdAt: Date;
  updatedAt: Date;
}

const hintOf = (value: string) => (value.length > 8 ? `${MASK}${value.slice(-4)}` : MASK);

function definitionOf(row: ChatbotAction): ActionDefinition {
  return {
    name: row.name,
    whenToUse: row.whenToUse,
    inputs: row.inputs as ActionDefinition['inputs'],
    method: row.method as ActionDefinition['method'],
    url: row.url,
    query: row.query as ActionDefinition['query'],
    headers: row.headers as ActionDefinition['headers'],
    body: row.body,
    secrets: [],
    responseFields: row.responseFields,
    timeoutMs: row.timeoutMs,
    maxResponseBytes: row.maxResponseBytes,
    confirm: row.confirm,
    identifiedOnly: row.identifiedOnly,
  };
}

export function viewOf(row: ChatbotAction): ActionView {
  const hints = row.secretHints as Record<string, string>;
  return {
    ...definitionOf(row),
    id: row.id,
    chatbotId: row.chatbotId,
    secrets: Object.entries(hints).map(([name, hint]) => ({ name, hint })),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function openSecrets(deps: ActionDeps, row: ChatbotAction): Record<string, string> {
  return row.secrets ? (JSON.parse(open(deps.secretKey, row.secrets, row.id)) as Record<string, string>) : {};
}

/**
 * The definition, validated; a refusal (ActionDefinitionError) is the first problem in the owner's
 * words. zod's schema is loaded here at the first definition checked (action-definition.ts).
 */
export async function parseActionDefinition(raw: unknown): Promise<ActionDefinition> {
  const { checkActionDefinition } = await import('./action-definition-schema.ts');
  return checkActionDefinition(raw);
}

/** The definition checked, and its URL against the outbound policy (https outside development). */
async function checked(deps: ActionDeps, raw: ActionDefinitionInput): Promise<ActionDefinition> {
  let def: ActionDefinition;
  try {
    def = await parseActionDefinition(raw);
    outboundUrl(
      fill(def.url, () => 'x'),
      deps.policy,
    );
  } catch (err) {
    if (err instanceof ActionDefinitionError || err instanceof OutboundError) throw invalid(err.message);
    throw err;
  }
  return def;
}

function sealedColumns(deps: ActionDeps, id: string, secrets: Record<string, string>) {
  return {
    secrets: Object.keys(secrets).length ? seal(deps.secretKey, JSON.stringify(secrets), id) : '',
    secretHints: Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, hintOf(value)])),
  };
}

function columns(def: ActionDefinition) {
  return {
    name: def.name,
    whenToUse: def.whenToUse,
    inputs: def.inputs as Prisma.InputJsonValue,
    method: def.method,
    url: def.url,
    query: def.query as Prisma.InputJsonValue,
    headers: def.headers as Prisma.InputJsonValue,
    body: def.body,
    responseFields: def.responseFields,
    timeoutMs: def.timeoutMs,
    maxResponseBytes: def.maxResponseBytes,
    confirm: def.confirm,
    identifiedOnly: def.identifiedOnly,
  };
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === 'P2002';

export async function createAction(deps: ActionDeps, ref: OwnedChatbotRef, raw: ActionDefinitionInput): Promise<ActionView> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const def = await checked(deps, raw);
  if ((await deps.db.chatbotAction.count({ where: { chatbotId: chatbot.id } })) >= MAX_ACTIONS_PER_CHATBOT) throw invalid(TOO_MANY_ACTIONS);
  const id = randomUUID();
  const secrets = Object.fromEntries(def.secrets.filter((s) => s.value).map((s) => [s.name, s.value]));
  try {
    const [row] = await deps.db.$transaction([
      deps.db.chatbotAction.create({ data: { id, chatbotId: chatbot.id, ...columns(def), ...sealedColumns(deps, id, secrets) } }),
      deps.db.chatbot.update({ where: { id: chatbot.id }, data: { actionCount: { increment: 1 } } }),
    ]);
    await deps.publicChanged(chatbot.id);
    return viewOf(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw invalid(ACTION_NAME_TAKEN);
    throw err;
  }
}

async function findAction(deps: ActionDeps, ref: OwnedChatbotRef, actionId: string): Promise<ChatbotAction> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const id = actionId.trim().toLowerCase();
  const row = isUuid(id) ? await deps.db.chatbotAction.findFirst({ where: { id, chatbotId: chatbot.id } }) : null;
  if (!row) throw notFound(ACTION_NOT_FOUND);
  return row;
}

/** Replaces the definition; a secret named with an empty value keeps its stored value, one not named is removed. */
export async function updateAction(
  deps: ActionDeps,
  ref: OwnedChatbotRef,
  actionId: string,
  raw: ActionDefinitionInput,
): Promise<ActionView> {
  const row = await findAction(deps, ref, actionId);
  const def = await checked(deps, raw);
  const stored = openSecrets(deps, row);
  const secrets = Object.fromEntries(
    def.secrets.map((s) => [s.name, s.value || stored[s.name] || ''] as const).filter(([, value]) => value),
  );
  try {
    const updated = await deps.db.chatbotAction.update({
      where: { id: row.id },
      data: { ...columns(def), ...sealedColumns(deps, row.id, secrets) },
    });
    await deps.publicChanged(row.chatbotId);
    return viewOf(updated);
  } catch (err) {
    if (isUniqueViolation(err)) throw invalid(ACTION_NAME_TAKEN);
    throw err;
  }
}

export async function deleteAction(deps: ActionDeps, ref: OwnedChatbotRef, actionId: string): Promise<void> {
  const row = await findAction(deps, ref, actionId);
  await deps.db.$transaction([
    deps.db.chatbotAction.delete({ where: { id: row.id } }),
    deps.db.chatbot.update({ where: { id: row.chatbotId }, data: { actionCount: { decrement: 1 } } }),
  ]);
  await deps.publicChanged(row.chatbotId);
}

export async function listActions(deps: ActionDeps, ref: OwnedChatbotRef): Promise<ActionView[]> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const rows = await deps.db.chatbotAction.findMany({ where: { chatbotId: chatbot.id }, orderBy: { createdAt: 'asc' } });
  return rows.map(viewOf);
}

/** The actions of a chatbot as the model's tools (no secret, no URL): what the chat service reads with the chatbot. */
export async function actionTools(db: PrismaClient, chatbotId: string): Promise<ActionDefinition[]> {
  const rows = await db.chatbotAction.findMany({ where: { chatbotId }, orderBy: { createdAt: 'asc' } });
  return rows.map(definitionOf);
}

function logCall(
  deps: ActionDeps,
  row: ChatbotAction,
  o: ActionOutcome,
  call: { source: 'chat' | 'test'; sessionId?: string; callKey?: string },
): Promise<ActionCall> {
  return deps.db.actionCall.create({
    data: {
      actionId: row.id,
      chatbotId: row.chatbotId,
      sessionId: call.sessionId ?? '',
      source: call.source,
      callKey: call.callKey,
      inputs: o.inputs as Prisma.InputJsonValue,
      status: o.status,
      error: o.error,
      httpStatus: o.httpStatus,
      durationMs: o.durationMs,
      fieldsRead: o.fieldsRead,
      result: o.result,
    },
  });
}

/** The owner's Test: runs the action with sample inputs, logged as a test; shows the request masked and the filtered answer. */
export async function testAction(
  deps: ActionDeps,
  ref: OwnedChatbotRef,
  actionId: string,
  args: Record<string, unknown>,
): Promise<ActionOutcome> {
  const row = await findAction(deps, ref, actionId);
  const outcome = await runAction(definitionOf(row), openSecrets(deps, row), args, { policy: deps.policy });
  await logCall(deps, row, outcome, { source: 'test' });
  return outcome;
}

export interface ChatRun {
  chatbotId: string;
  actionName: string;
  sessionId: string;
  args: Record<string, unknown>;
  /** The caller's key of this call: a run with a key already logged answers that run's outcome without running again. */
  callKey: string;
  /** The turn's verified visitor (the chat service checked them); absent: unverified. */
  visitor?: { userId: string; email: string };
}

export type ChatRunOutcome = Pick<ActionOutcome, 'status' | 'error' | 'result' | 'fieldsRead' | 'durationMs'> & { repeated: boolean };

const asOutcome = (c: ActionCall, repeated: boolean): ChatRunOutcome => ({
  status: c.status as ActionOutcome['status'],
  error: c.error,
  result: c.result,
  fieldsRead: c.fieldsRead,
  durationMs: c.durationMs,
  repeated,
});

/**
 * A visitor's tool call, run at most once per callKey: a retry, a second Confirm or a reload finds
 * the logged run. Two runs racing on one key: the loser's log row is refused by the unique key, and it
 * answers the winner's outcome (the target may then have been called twice only if both raced past
 * the first read; the claim below makes even that impossible).
 */
export async function runChatAction(deps: ActionDeps, run: ChatRun): Promise<ChatRunOutcome> {
  const row = isUuid(run.chatbotId)
    ? await deps.db.chatbotAction.findFirst({ where: { chatbotId: run.chatbotId, name: run.actionName } })
    : null;
  if (!row)
    return {
      status: 'refused',
      error: `There is no action named ${run.actionName.slice(0, 60)}`,
      result: '',
      fieldsRead: [],
      durationMs: 0,
      repeated: false,
    };
  // The claim: a row with the key is written before the target is called, so only one run proceeds.
  let claim: ActionCall;
  try {
    claim = await deps.db.actionCall.create({
      data: {
        actionId: row.id,
        chatbotId: row.chatbotId,
        sessionId: run.sessionId,
        source: 'chat',
        callKey: run.callKey,
        inputs: {},
        status: 'running',
      },
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const done = await deps.db.actionCall.findUnique({ where: { callKey: run.callKey } });
    if (!done || done.status === 'running')
      return { status: 'failed', error: 'This call is already running', result: '', fieldsRead: [], durationMs: 0, repeated: true };
    return asOutcome(done, true);
  }
  const outcome = await runAction(definitionOf(row), openSecrets(deps, row), run.args, { policy: deps.policy, visitor: run.visitor });
  const logged = await deps.db.actionCall.update({
    where: { id: claim.id },
    data: {
      inputs: outcome.inputs as Prisma.InputJsonValue,
      status: outcome.status,
      error: outcome.error,
      httpStatus: outcome.httpStatus,
      durationMs: outcome.durationMs,
      fieldsRead: outcome.fieldsRead,
      result: outcome.result,
    },
  });
  return asOutcome(logged, false);
}

export interface ActionCallView {
  id: string;
  actionId: string;
  actionName: string;
  sessionId: string;
  source: string;
  inputs: Record<string, unknown>;
  status: string;
  error: string;
  httpStatus: number;
  durationMs: number;
  fieldsRead: string[];
  createdAt: Date;
}

/** The log of one action (newest first), or of one conversation's calls (sessionId), for the owner. */
export async function listActionCalls(
  deps: ActionDeps,
  ref: OwnedChatbotRef,
  filter: { actionId?: string; sessionId?: string; limit?: number },
): Promise<ActionCallView[]> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const where: Prisma.ActionCallWhereInput = { chatbotId: chatbot.id, NOT: { status: 'running' } };
  if (filter.actionId) where.actionId = (await findAction(deps, ref, filter.actionId)).id;
  if (filter.sessionId) where.sessionId = filter.sessionId.slice(0, 200);
  const calls = await deps.db.actionCall.findMany({
    where,
    orderBy: { createdAt: 'desc' },
    take: Math.min(Math.max(filter.limit ?? 50, 1), 200),
    include: { action: { select: { name: true } } },
  });
  return calls.map((c) => ({
    id: c.id,
    actionId: c.actionId,
    actionName: c.action.name,
    sessionId: c.sessionId,
    source: c.source,
    inputs: c.inputs as Record<string, unknown>,
    status: c.status,
    error: c.error,
    httpStatus: c.httpStatus,
    durationMs: c.durationMs,
    fieldsRead: c.fieldsRead,
    createdAt: c.createdAt,
  }));
}
