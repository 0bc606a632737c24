// One model call of the quality loop that is not a visitor's turn (the judge's grade, generated
// cases), on the same money path as an answer (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md):
// its largest cost is held in billing before the model is called (refused: no call), the hold is
// released when the model fails, and its UsageRecorded settles it at the model's exact price.
import { randomUUID } from 'node:crypto';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ChatModels } from '../models/chat-models.ts';
import type { ModelAnswer, ModelMessage } from '../models/language-model.ts';
import { maxPromptTokens, type CreditGate } from '../public-chat/credit-hold.ts';
import type { Usage } from '../usage/publishers.ts';
import { modelCost } from './answer-case.ts';

export interface BilledCallDeps {
  models: ChatModels;
  credit: CreditGate;
  catalogue: ModelCatalogue;
  publishUsage: (usage: Usage) => void;
}

export interface BilledCall {
  ownerId: string;
  chatbotId: string;
  chatbotName: string;
  /** The chatbot's daily spend limit (exact decimal dollars); null: none. */
  dailySpendLimit: string | null;
  /** A catalogue model; empty or not offered: the default. */
  modelId: string;
  messages: ModelMessage[];
  maxTokens: number;
  jsonSchema?: { name: string; schema: Record<string, unknown> };
}

export interface BilledAnswer {
  requestId: string;
  answer: ModelAnswer;
  /** Exact dollars at the answering model's catalogue price (0 on the workspace's own key). */
  cost: Prisma.Decimal;
}

/** Null offline (no model offered). Throws the hold's refusal (a ConnectError) or the model's LanguageModelError. */
export async function billedCall(deps: BilledCallDeps, call: BilledCall): Promise<BilledAnswer | null> {
  const chosen = await deps.models.choose({ model: { modelId: call.modelId, fallbackModelId: '' }, ownerId: call.ownerId });
  if (!chosen) return null;
  const maxTokens = Math.max(1, Math.min(call.maxTokens, chosen.maxOutputTokens));
  const requestId = randomUUID();
  const promptTokens = maxPromptTokens(call.messages);
  await deps.credit.reserve({
    requestId,
    ownerId: call.ownerId,
    model: chosen.holdModel(promptTokens),
    prompt: call.messages,
    chatbotId: call.chatbotId,
    dailySpendLimit: call.dailySpendLimit,
    ownKey: chosen.ownKey,
    loop: { maxPromptTokens: promptTokens, maxCompletionTokens: maxTokens },
  });
  let answer: ModelAnswer;
  try {
    answer = await chosen.language.complete({ messages: call.messages, maxTokens, jsonSchema: call.jsonSchema });
  } catch (err) {
    await deps.credit.release(requestId);
    throw err;
  }
  const usage: Usage = {
    requestId,
    ownerId: call.ownerId,
    chatbotId: call.chatbotId,
    chatbotName: call.chatbotName,
    model: answer.model,
    provider: answer.provider,
    promptTokens: answer.promptTokens,
    completionTokens: answer.completionTokens,
    cachedPromptTokens: answer.cachedPromptTokens,
    reasoningTokens: answer.reasoningTokens,
    fallback: answer.fallback,
    ownKey: answer.ownKey ?? false,
    occurredAt: new Date(),
    apiKeyId: '',
  };
  deps.publishUsage(usage);
  return { requestId, answer, cost: modelCost(deps.catalogue, usage) };
}

/**
 * The reply as JSON, strictly: the whole text one JSON value (a single Markdown code fence around it
 * is taken off, as some models add it); anything else is null.
 */
export function replyJson(text: string): unknown {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/u.exec(text.trim());
  try {
    return JSON.parse(fenced ? fenced[1] : text.trim());
  } catch {
    return null;
  }
}

/** An object with exactly these keys, else null. */
export function exactObject(value: unknown, keys: string[]): Record<string, unknown> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const own = Object.keys(value);
  if (own.length !== keys.length || !keys.every((k) => own.includes(k))) return null;
  return value as Record<string, unknown>;
}
