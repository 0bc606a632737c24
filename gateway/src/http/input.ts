// Typing of REST JSON bodies. Presence and format rules belong to the services (they own the
// messages); the gateway only refuses values of the wrong JSON type, which the services cannot see,
// and text no service should ever store (control characters, lone surrogates).
import { invalid } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { z } from 'zod';

export type JsonObject = Record<string, unknown>;

export const CONTROL_CHARACTERS = 'Text must not contain control characters';

/**
 * Whether a string is text the services may store: no control characters and no lone UTF-16
 * surrogate (JSON can carry `"\ud800"`, which is no character at all and cannot be encoded as UTF-8).
 */
export function isCleanText(value: string): boolean {
  // The floor for every field, so multi-line text keeps its line breaks; a service refuses more where a field is one line.
  return !hasControlCharacters(value, 'multi-line') && value.isWellFormed();
}

function cleanText(value: string): string {
  if (!isCleanText(value)) throw invalid(CONTROL_CHARACTERS);
  return value;
}

/** The parsed body as an object; no body (or a non-JSON content type) counts as an empty one. */
export function jsonObject(body: unknown): JsonObject {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('Request body must be a JSON object');
  return body as JsonObject;
}

/** A string field; a missing one reads as "" so the service answers with its own "required" message. */
export function stringField(body: JsonObject, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid(`${name} must be a string`);
  return cleanText(value);
}

/** An optional string field: undefined when absent. */
export function optionalString(body: JsonObject, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`${name} must be a string`);
  return cleanText(value);
}

/** An optional boolean field: undefined when absent. */
export function optionalBoolean(body: JsonObject, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalid(`${name} must be true or false`);
  return value;
}

/** An optional number that may be null (null has a meaning of its own, such as "back to the default"). */
export function optionalNumberOrNull(body: JsonObject, name: string): number | null | undefined {
  const value = body[name];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'number') throw invalid(`${name} must be a number or null`);
  return value;
}

/** An optional whole number: undefined when absent. */
export function optionalInteger(body: JsonObject, name: string): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`${name} must be a whole number`);
  return value;
}

/** An optional array of strings: undefined when absent. */
export function optionalStringArray(body: JsonObject, name: string): string[] | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw invalid(`${name} must be an array of strings`);
  return value.map(cleanText);
}

/** A boolean field that must be there. */
export function booleanField(body: JsonObject, name: string): boolean {
  const value = optionalBoolean(body, name);
  if (value === undefined) throw invalid(`${name} must be true or false`);
  return value;
}

// The same rules as zod schemas, for an operation row's body and query (operations.ts): each keeps
// the reader's wording above, so a row's validation answers as the reader did.

/** A JSON body of these fields; no body (or a non-JSON content type) counts as an empty one. */
export function jsonBody<S extends z.ZodRawShape>(shape: S) {
  return z.preprocess((value) => value ?? {}, z.object(shape, { error: 'Request body must be a JSON object' }));
}

const cleanString = (name: string) => z.string({ error: `${name} must be a string` }).refine(isCleanText, CONTROL_CHARACTERS);

/** stringField: a missing (or null) one reads as "" so the service answers with its own "required" message. */
export const text = (name: string) =>
  cleanString(name)
    .nullish()
    .transform((value) => value ?? '');

/** optionalString: undefined when absent. */
export const optionalText = (name: string) => cleanString(name).optional();

/** optionalBoolean: undefined when absent. */
export const optionalFlag = (name: string) => z.boolean({ error: `${name} must be true or false` }).optional();

/** booleanField: a boolean that must be there. */
export const flag = (name: string) => z.boolean({ error: `${name} must be true or false` });

/** optionalNumberOrNull: undefined when absent, null kept (it has a meaning of its own). */
export const numberOrNull = (name: string) =>
  z.custom<number>((value) => typeof value === 'number', `${name} must be a number or null`).nullish();

/** optionalInteger: undefined when absent. */
export const optionalWholeNumber = (name: string) =>
  z.custom<number>((value) => typeof value === 'number' && Number.isInteger(value), `${name} must be a whole number`).optional();

/** optionalStringArray: undefined when absent; every item typed first, then every item clean. */
export const optionalTextList = (name: string) => {
  const message = `${name} must be an array of strings`;
  return z
    .array(z.string({ error: message }), { error: message })
    .refine((items) => items.every(isCleanText), CONTROL_CHARACTERS)
    .optional();
};

/** A whole number given as a query parameter (up to four digits), or undefined when absent or blank. */
export const queryWholeNumber = (name: string) =>
  optionalText(name).transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === '') return undefined;
    if (/^\d{1,4}$/.test(raw.trim())) return Number(raw.trim());
    ctx.addIssue({ code: 'custom', message: `${name} must be a whole number`, input: raw });
    return z.NEVER;
  });

/**
 * A schema whose first problem is worded with its field's path (`definition.name: Invalid input…`),
 * as zod words it: for a body or query whose rules are a service's, the gateway checking its shape
 * alone (an action's definition, an MCP server's settings).
 */
export const withPaths = <T extends z.ZodType>(schema: T) =>
  z.unknown().transform((value, ctx): z.output<T> => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    ctx.addIssue({ code: 'custom', message: `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`, input: value });
    return z.NEVER;
  });

/** The largest int32, the bound of the services' whole-number fields. */
export const INT32_MAX = 2 ** 31 - 1;

/** A whole number as an int32 field; a fraction as -1 and a number beyond int32 as its bound, for the service to refuse. */
export function int32Field(typed: number): number {
  if (!Number.isInteger(typed)) return -1;
  return Math.max(-INT32_MAX, Math.min(typed, INT32_MAX));
}
