// What an owner may declare as an HTTP action (docs/adr/0045-http-actions.md), validated once at
// the boundary: a name and "when to use" for the model, inputs as a small JSON schema, a method, an
// https URL and query/header/body templates with {input} placeholders and {secret.NAME} references,
// the response fields the bot may read, bounds and whether the visitor confirms. Nothing here is
// code: a template is text where placeholders are replaced, never evaluated. The checks themselves,
// zod's schema and the types it gives, are in action-definition-schema.ts, loaded by actions.ts at the
// first definition checked: zod is not otherwise loaded in this service
// (docs/adr/0068-memory-at-rest.md).

export const ACTION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ActionMethod = (typeof ACTION_METHODS)[number];
export const INPUT_TYPES = ['string', 'number', 'integer', 'boolean'] as const;
/** Where an input's value comes from: the model, or (for userId/email) only the verified visitor. */
export const INPUT_SOURCES = ['model', 'userId', 'email'] as const;

export const MAX_ACTIONS_PER_CHATBOT = 20;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;
/** The most the bot reads of one response (the allow-listed fields, as JSON). */
export const MAX_READ_BYTES = 4 * 1024;

export class ActionDefinitionError extends Error {}

export type Placeholder = { kind: 'input' | 'secret'; name: string; raw: string };
const PLACEHOLDER = /\{(secret\.)?([A-Za-z][A-Za-z0-9_]{0,47})\}/g;

/** The {input} and {secret.NAME} references of a template, in order. */
export function placeholders(template: string): Placeholder[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => ({ kind: m[1] ? 'secret' : 'input', name: m[2], raw: m[0] }));
}

/** Replaces each reference by `value(ref)`; text that is not a reference stays as it is. */
export function fill(template: string, value: (ref: Placeholder) => string): string {
  return template.replace(PLACEHOLDER, (raw, secret: string | undefined, name: string) =>
    value({ kind: secret ? 'secret' : 'input', name, raw }),
  );
}
