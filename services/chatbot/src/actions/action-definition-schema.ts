// The checks of an HTTP action's definition (action-definition.ts, docs/adr/0045-http-actions.md), as
// zod's schema: loaded by parseActionDefinition at the first definition an owner adds, changes or
// tests, so that zod is not loaded in a chatbot service at rest (docs/adr/0068-memory-at-rest.md).
import { z } from 'zod';
import {
  ACTION_METHODS,
  ActionDefinitionError,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  fill,
  INPUT_SOURCES,
  INPUT_TYPES,
  placeholders,
} from './action-definition.ts';

const NAME = /^[a-z][a-z0-9_]{0,47}$/;
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,31}$/;
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const FIELD_PATH = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,5}$/;
/** Headers the request's own framing owns: an owner cannot set them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'te', 'upgrade', 'trailer']);

const text = (max: number) => z.string().trim().max(max);

export const actionInputSchema = z
  .object({
    name: z.string().regex(NAME, 'An input name is lower case letters, digits and underscores'),
    type: z.enum(INPUT_TYPES),
    description: text(300).default(''),
    required: z.boolean().default(false),
    enum: z.array(text(100).min(1)).max(50).optional(),
    source: z.enum(INPUT_SOURCES).default('model'),
  })
  .strict();
export type ActionInput = z.infer<typeof actionInputSchema>;

const pair = z.object({ name: z.string().min(1).max(64), value: z.string().max(2000) }).strict();

export const actionDefinitionSchema = z
  .object({
    name: z.string().regex(NAME, 'The name is lower case letters, digits and underscores (at most 48), starting with a letter'),
    whenToUse: text(1000).min(1, 'Say when the bot should use this action'),
    inputs: z.array(actionInputSchema).max(20).default([]),
    method: z.enum(ACTION_METHODS),
    url: z.string().trim().min(1).max(2000),
    query: z.array(pair).max(20).default([]),
    headers: z
      .array(pair.extend({ name: z.string().regex(HEADER_NAME, 'A header name is letters, digits and dashes') }))
      .max(20)
      .default([]),
    body: z.string().max(20_000).default(''),
    /** Secret values by name; on an update, a name given with an empty value keeps the stored one. */
    secrets: z
      .array(
        z
          .object({ name: z.string().regex(SECRET_NAME, 'A secret name is upper case, e.g. API_KEY'), value: z.string().max(4000) })
          .strict(),
      )
      .max(10)
      .default([]),
    responseFields: z.array(z.string().regex(FIELD_PATH, 'A response field is a dotted path, e.g. order.status')).max(30).default([]),
    timeoutMs: z.number().int().min(500).max(30_000).default(DEFAULT_TIMEOUT_MS),
    maxResponseBytes: z
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024)
      .default(DEFAULT_MAX_RESPONSE_BYTES),
    /** Unset: on for anything but GET. */
    confirm: z.boolean().optional(),
    identifiedOnly: z.boolean().default(false),
  })
  .strict()
  .superRefine((d, ctx) => {
    const names = new Set<string>();
    for (const input of d.inputs) {
      if (names.has(input.name)) ctx.addIssue({ code: 'custom', message: `The input "${input.name}" is declared twice` });
      names.add(input.name);
      if (input.source !== 'model' && input.type !== 'string')
        ctx.addIssue({ code: 'custom', message: `The input "${input.name}" comes from the visitor's identity and must be a string` });
    }
    const secretNames = new Set(d.secrets.map((s) => s.name));
    const templates = [d.url, d.body, ...d.query.map((q) => q.value), ...d.headers.map((h) => h.value)];
    for (const t of templates) {
      for (const ref of placeholders(t)) {
        if (ref.kind === 'input' && !names.has(ref.name))
          ctx.addIssue({ code: 'custom', message: `{${ref.name}} is not a declared input` });
        if (ref.kind === 'secret' && !secretNames.has(ref.name))
          ctx.addIssue({ code: 'custom', message: `{secret.${ref.name}} is not a declared secret` });
      }
    }
    // A secret goes only where the owner's server reads it: headers and query, never the URL's path or the body.
    for (const t of [d.url, d.body])
      if (placeholders(t).some((r) => r.kind === 'secret'))
        ctx.addIssue({ code: 'custom', message: 'Secrets may be used in headers and query values only' });
    for (const h of d.headers)
      if (RESERVED_HEADERS.has(h.name.toLowerCase())) ctx.addIssue({ code: 'custom', message: `The header ${h.name} cannot be set` });
    if (d.body && d.method === 'GET') ctx.addIssue({ code: 'custom', message: 'A GET action has no body' });
    if (d.body) {
      try {
        JSON.parse(d.body);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'The body must be JSON (placeholders inside strings, e.g. "{order_id}")' });
      }
    }
    let a: URL | undefined;
    let b: URL | undefined;
    try {
      a = new URL(fill(d.url, () => 'a'));
      b = new URL(fill(d.url, () => 'b'));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'The URL must be a valid https:// address' });
    }
    if (a && b && a.origin !== b.origin) ctx.addIssue({ code: 'custom', message: "Placeholders may not stand in the URL's host" });
  });

export type ActionDefinitionInput = z.input<typeof actionDefinitionSchema>;
export type ActionDefinition = Omit<z.output<typeof actionDefinitionSchema>, 'confirm'> & { confirm: boolean };

/** The definition, validated; a refusal is the first problem in the owner's words (parseActionDefinition). */
export function checkActionDefinition(raw: unknown): ActionDefinition {
  const parsed = actionDefinitionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // zod's own messages name the field; the schema's messages already say which.
    const where =
      issue.path.length && ['invalid_type', 'invalid_value', 'too_big', 'too_small'].includes(issue.code)
        ? ` (${issue.path.join('.')})`
        : '';
    throw new ActionDefinitionError(`${issue.message}${where}`);
  }
  return { ...parsed.data, confirm: parsed.data.confirm ?? parsed.data.method !== 'GET' };
}
