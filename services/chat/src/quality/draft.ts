// A side by side's draft (docs/adr/0058-side-by-side-runs.md): the model, instructions and
// temperature a run answers every case with beside the chatbot's own configuration. The draft is
// checked when the run starts (a model the deployment offers, the instructions' bound, the temperature's range)
// and applied to the chatbot the turn loaded, so the draft's answers go through the same turn,
// credit hold and billing as the configuration's; "Apply draft" is the chatbot service's ordinary
// settings change, made by the owner's client.
import type { PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { OfferedModels } from '../models/offered-models.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { ChatbotContext } from '../public-chat/chatbot-context.ts';
import { INSTRUCTIONS_MAX_CHARS } from '../public-chat/build-prompt.ts';

export interface Draft {
  modelId: string;
  instructions: string;
  /** Absent: the product's default. */
  temperature?: number;
}

export const VARIANTS = ['current', 'draft'] as const;
export type Variant = (typeof VARIANTS)[number];

export const MAX_TEMPERATURE = 1.5;
export const DRAFT_MODEL_UNKNOWN = 'Choose one of the offered models for the draft.';
export const DRAFT_TEMPERATURE = `The draft's temperature is between 0 and ${MAX_TEMPERATURE}.`;
export const DRAFT_INSTRUCTIONS_TOO_LONG = `The draft's instructions are too long (maximum ${INSTRUCTIONS_MAX_CHARS} characters).`;

/** The draft as asked for, checked; null when none was given. INVALID_ARGUMENT names what is wrong. */
export function parseDraft(
  raw: { modelId: string; instructions: string; temperature?: number } | undefined,
  offered: Pick<OfferedModels, 'find'>,
): Draft | null {
  if (!raw) return null;
  const modelId = raw.modelId.trim();
  if (!offered.find(modelId)) throw invalid(DRAFT_MODEL_UNKNOWN);
  const instructions = raw.instructions.trim();
  if ([...instructions].length > INSTRUCTIONS_MAX_CHARS) throw invalid(DRAFT_INSTRUCTIONS_TOO_LONG);
  const t = raw.temperature;
  if (t !== undefined && !(Number.isFinite(t) && t >= 0 && t <= MAX_TEMPERATURE)) throw invalid(DRAFT_TEMPERATURE);
  return t === undefined ? { modelId, instructions } : { modelId, instructions, temperature: t };
}

/** The draft as stored with its run (JSON), read back. */
export function storedDraft(json: unknown): Draft | null {
  if (!json || typeof json !== 'object') return null;
  const d = json as Partial<Draft>;
  if (typeof d.modelId !== 'string' || typeof d.instructions !== 'string') return null;
  return typeof d.temperature === 'number'
    ? { modelId: d.modelId, instructions: d.instructions, temperature: d.temperature }
    : { modelId: d.modelId, instructions: d.instructions };
}

/** The chatbot as the draft would make it: its model (the fallback kept), instructions and temperature. */
export function withDraft(chatbot: PublicChatbot, draft: Draft): PublicChatbot {
  const voice = chatbot.voice ?? {
    instructions: '',
    welcomeMessage: '',
    suggestedQuestions: [],
    noAnswerMessage: '',
    answerInVisitorLanguage: false,
  };
  return {
    ...chatbot,
    model: { $typeName: 'parley.chatbot.v1.ModelChoice', fallbackModelId: '', ...chatbot.model, modelId: draft.modelId },
    voice: { $typeName: 'parley.chatbot.v1.Voice', ...voice, instructions: draft.instructions, temperature: draft.temperature },
  };
}

/** The chatbot context that loads every chatbot as the draft makes it (the test-run channel's turn only). */
export function draftContext(context: ChatbotContext, draft: Draft): ChatbotContext {
  return {
    ...context,
    known: (uniqueId) => context.known(uniqueId),
    readAlong: (known, conversation) => context.readAlong(known, conversation),
    load: async (input, sighting) => {
      const loaded = await context.load(input, sighting);
      return { ...loaded, chatbot: withDraft(loaded.chatbot, draft) };
    },
  };
}
