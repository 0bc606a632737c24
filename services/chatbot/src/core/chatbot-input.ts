// Validation of chatbot input at the RPC boundary, with the messages owners see.
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { isLanguageName, type LanguageName } from '@parley/proto/language.ts';
import { isUuid } from '@parley/common/ids.ts';
import { CHATBOT_NOT_FOUND } from '@parley/common/not-found.ts';

export { CHATBOT_NOT_FOUND };

export const NAME_REQUIRED = 'Name is required';
export const NAME_MAX_CHARS = 100;
export const NAME_TOO_LONG = `Name must be at most ${NAME_MAX_CHARS} characters`;
export const LANGUAGE_INVALID = 'Language must be english, french or chinese';

/** Auth's user id, as the gateway passes it. */
export function parseOwnerId(raw: string): string {
  const ownerId = raw.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  if (ownerId.length > 100) throw invalid('owner_id must be at most 100 characters.');
  return ownerId;
}

/** A chatbot id that is not a UUID cannot name a chatbot: answered like an unknown one. */
export function parseChatbotId(raw: string): string {
  const id = raw.trim();
  if (!isUuid(id)) throw notFound(CHATBOT_NOT_FOUND);
  return id.toLowerCase();
}

export function parseName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid(NAME_REQUIRED);
  if ([...name].length > NAME_MAX_CHARS) throw invalid(NAME_TOO_LONG);
  return name;
}

export function parseLanguage(raw: string): LanguageName {
  const language = raw.trim().toLowerCase();
  if (!isLanguageName(language)) throw invalid(LANGUAGE_INVALID);
  return language;
}

export const INSTRUCTIONS_MAX_CHARS = 4000;
export const INSTRUCTIONS_TOO_LONG = 'Instructions are too long (maximum 4,000 characters)';
export const TEMPERATURE_INVALID = 'Temperature must be a number from 0 to 1.5';
export const MAX_TEMPERATURE = 1.5;
export const WELCOME_MAX_CHARS = 500;
export const WELCOME_TOO_LONG = 'Welcome message is too long (maximum 500 characters)';
export const MAX_SUGGESTED_QUESTIONS = 4;
export const TOO_MANY_SUGGESTED_QUESTIONS = 'At most 4 suggested questions';
export const SUGGESTED_QUESTION_MAX_CHARS = 120;
export const SUGGESTED_QUESTION_TOO_LONG = 'Each suggested question must be at most 120 characters';
export const NO_ANSWER_MAX_CHARS = 500;
export const NO_ANSWER_TOO_LONG = 'No-answer message is too long (maximum 500 characters)';

/** A change of the bot's voice as the proto's VoiceChange carries it: only the fields present change. */
export interface VoiceChangeInput {
  instructions?: string;
  temperature?: number;
  clearTemperature?: boolean;
  welcomeMessage?: string;
  suggestedQuestions?: { questions: string[] };
  noAnswerMessage?: string;
  answerInVisitorLanguage?: boolean;
}

/** The validated change, as the Chatbot row's columns (undefined: unchanged; temperature null: the product's default). */
export interface VoiceUpdate {
  instructions?: string;
  temperature?: number | null;
  welcomeMessage?: string;
  suggestedQuestions?: string[];
  noAnswerMessage?: string;
  answerInVisitorLanguage?: boolean;
}

const chars = (s: string) => [...s].length;

function parseText(raw: string | undefined, max: number, tooLong: string): string | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (chars(text) > max) throw invalid(tooLong);
  return text;
}

export function parseVoiceChange(change: VoiceChangeInput | undefined): VoiceUpdate {
  if (!change) return {};
  let temperature: number | null | undefined;
  if (change.clearTemperature) temperature = null;
  else if (change.temperature !== undefined) {
    const t = change.temperature;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > MAX_TEMPERATURE) throw invalid(TEMPERATURE_INVALID);
    temperature = t;
  }
  let suggestedQuestions: string[] | undefined;
  if (change.suggestedQuestions) {
    // Empty ones are dropped before counting: a form's blank rows are not questions.
    suggestedQuestions = change.suggestedQuestions.questions.map((q) => q.trim()).filter(Boolean);
    if (suggestedQuestions.length > MAX_SUGGESTED_QUESTIONS) throw invalid(TOO_MANY_SUGGESTED_QUESTIONS);
    if (suggestedQuestions.some((q) => chars(q) > SUGGESTED_QUESTION_MAX_CHARS)) throw invalid(SUGGESTED_QUESTION_TOO_LONG);
  }
  return {
    instructions: parseText(change.instructions, INSTRUCTIONS_MAX_CHARS, INSTRUCTIONS_TOO_LONG),
    temperature,
    welcomeMessage: parseText(change.welcomeMessage, WELCOME_MAX_CHARS, WELCOME_TOO_LONG),
    suggestedQuestions,
    noAnswerMessage: parseText(change.noAnswerMessage, NO_ANSWER_MAX_CHARS, NO_ANSWER_TOO_LONG),
    answerInVisitorLanguage: change.answerInVisitorLanguage,
  };
}
