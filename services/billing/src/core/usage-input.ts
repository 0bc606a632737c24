// The input rules a usage request shares with the credit hold taken for it (credit/reserve-credit.ts):
// request ids, chatbot ids and model names are required bounded text, token counts whole numbers.
import { invalid } from '@parley/common/rpc-errors.ts';

/**
 * Tokens per field of one answer. Far above any model's context window, and low enough that the
 * counts fit INTEGER columns and the cost fits NUMERIC(20,10) at any stored price.
 */
export const MAX_TOKENS = 1_000_000_000;

export function requiredText(raw: string, name: string, maxChars: number): string {
  const value = raw.trim();
  if (!value) throw invalid(`${name} is required.`);
  if ([...value].length > maxChars) throw invalid(`${name} must be at most ${maxChars} characters.`);
  return value;
}

export function tokenCount(raw: number | bigint, name: string): number {
  const value = typeof raw === 'bigint' ? raw : Number.isInteger(raw) ? BigInt(raw) : undefined;
  if (value === undefined || value < 0n || value > BigInt(MAX_TOKENS)) {
    throw invalid(`${name} must be a whole number from 0 to ${MAX_TOKENS}, got ${String(raw)}.`);
  }
  return Number(value);
}
