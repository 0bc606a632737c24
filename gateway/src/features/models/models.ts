// The language models a workspace may choose for its chatbots (docs/product.md, The model; ADR 42).
// The one rule: a model this deployment offers (the chat service's ListModels: the catalogue's models
// whose provider has a key) that the workspace's plan (billing) may use (the model's `plans`). It
// lives here because the gateway is the one caller that may ask both services; the chatbot service
// then checks that what it stores is a catalogue id. REST, GraphQL and the developer API list the
// models and check a change through here.
import type { OfferedModel } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { ModelChoice } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { CatalogueModel, ModelCatalogue } from '@parley/common/models/catalogue.ts';
import { answerCostUnits, unitsToDollars } from '@parley/common/models/catalogue.ts';
import { forbidden, invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';

export type PlanName = 'free' | 'pro';

/**
 * What the product calls a typical answer when it prices one: a prompt of 2,000 tokens (instructions,
 * knowledge passages, recent turns and the question) and an answer of 300 tokens.
 */
export const TYPICAL_ANSWER = { promptTokens: 2000, completionTokens: 300 } as const;

/** A model as owners and integrators read it; prices are exact decimal strings of US dollars. */
export interface ModelView extends Pick<
  CatalogueModel,
  'id' | 'displayName' | 'contextWindow' | 'maxOutputTokens' | 'inputPricePerMillion' | 'outputPricePerMillion' | 'capabilities'
> {
  provider: string;
  /** The plans whose chatbots may use it. */
  plans: string[];
  /** The model a new chatbot answers with. */
  isDefault: boolean;
  /** The workspace's plan may use it. */
  allowed: boolean;
  /** Dollars of credit one typical answer costs (TYPICAL_ANSWER), exact. */
  typicalAnswerCost: string;
}

/** The model that answers a chatbot, or its fallback, as the chatbot's views name it. */
export interface ChatbotModelView {
  id: string;
  displayName: string;
  provider: string;
}

export const modelProOnly = (displayName: string, plans: readonly string[]) =>
  `${displayName} is available on the ${plans.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join(' and ')} plan.`;

/** An id longer than any catalogue id, or not printable, is not echoed back. */
export const unknownModel = (id: string) => (id.length <= 100 && /^[\x20-\x7e]*$/.test(id) ? `Unknown model: ${id}` : 'Unknown model');

export const typicalAnswerCost = (model: { inputPricePerMillion: string; outputPricePerMillion: string }): string =>
  unitsToDollars(answerCostUnits(model, TYPICAL_ANSWER.promptTokens, TYPICAL_ANSWER.completionTokens));

/** The rule: a model offered here is the workspace's to choose when its plan is one of the model's. */
export const mayChoose = (model: Pick<OfferedModel, 'plans'>, plan: PlanName) => model.plans.includes(plan);

export function modelView(model: OfferedModel, plan: PlanName): ModelView {
  return {
    id: model.id,
    provider: model.provider,
    displayName: model.displayName,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    inputPricePerMillion: model.inputPricePerMillion,
    outputPricePerMillion: model.outputPricePerMillion,
    capabilities: { streaming: model.streaming, tools: model.tools, images: model.images },
    plans: [...model.plans],
    isDefault: model.isDefault,
    allowed: mayChoose(model, plan),
    typicalAnswerCost: typicalAnswerCost(model),
  };
}

async function planOf(clients: Clients, ownerId: string): Promise<PlanName> {
  const { account } = await clients.billing.getAccount({ ownerId });
  return account?.plan === Plan.PRO ? 'pro' : 'free';
}

/** Every model this deployment offers, each with whether the workspace's plan may use it; the default first, then as the catalogue lists them. */
export async function workspaceModels(clients: Clients, ownerId: string): Promise<ModelView[]> {
  const [{ models }, plan] = await Promise.all([clients.chat.listModels({}), planOf(clients, ownerId)]);
  const views = models.map((m) => modelView(m, plan));
  return [...views.filter((m) => m.isDefault), ...views.filter((m) => !m.isDefault)];
}

/** What the owner asked to change; undefined leaves it, an empty fallback (or null) removes it. */
export interface ModelChoiceInput {
  modelId?: string;
  fallbackModelId?: string | null;
}

/**
 * The `model` of an UpdateChatbot request (ModelChoiceChange), absent when nothing in it changes,
 * once every id it names is one the workspace may choose: 400 for a model not offered here, 403 for
 * one its plan may not use. That the fallback differs from the model is the chatbot service's check.
 */
export async function modelChoiceChange(clients: Clients, ownerId: string, input: ModelChoiceInput) {
  const modelId = input.modelId?.trim();
  const fallbackModelId = input.fallbackModelId === null ? '' : input.fallbackModelId?.trim();
  if (modelId === undefined && fallbackModelId === undefined) return {};
  const named = [modelId, fallbackModelId].filter((id): id is string => Boolean(id));
  if (named.length > 0) {
    const models = await workspaceModels(clients, ownerId);
    for (const id of named) {
      const model = models.find((m) => m.id === id);
      if (!model) throw invalid(unknownModel(id));
      if (!model.allowed) throw forbidden(modelProOnly(model.displayName, model.plans));
    }
  }
  return { model: { modelId, fallbackModelId } };
}

/** The catalogue's names of a chatbot's model and fallback; an id it does not list is shown as itself. */
export function chatbotModelsView(
  choice: ModelChoice | undefined,
  catalogue: ModelCatalogue,
): { model: ChatbotModelView; fallbackModel: ChatbotModelView | null } {
  const named = (id: string): ChatbotModelView => {
    const m: CatalogueModel | undefined = catalogue.find(id);
    return { id, displayName: m?.displayName ?? id, provider: m?.provider ?? '' };
  };
  // A chatbot service that sends no choice predates it: its chatbots answered with the default.
  const modelId = choice?.modelId || catalogue.defaultModel.id;
  return { model: named(modelId), fallbackModel: choice?.fallbackModelId ? named(choice.fallbackModelId) : null };
}

/** Records a change of a chatbot's model in the workspace's audit log, by a member or (no user) an API key. */
export async function recordModelChange(
  clients: Clients,
  actor: { userId: string; workspaceId: string; clientIp: string },
  chatbotId: string,
  choice: { model: ChatbotModelView; fallbackModel: ChatbotModelView | null },
  details: object = {},
): Promise<void> {
  await clients.workspaces.recordAuditEvent({
    actor,
    action: 'chatbot.model_changed',
    target: chatbotId,
    detailsJson: JSON.stringify({ modelId: choice.model.id, fallbackModelId: choice.fallbackModel?.id ?? null, ...details }),
  });
}
