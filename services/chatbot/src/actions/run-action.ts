// Running one HTTP action (docs/adr/0045-http-actions.md): the model's arguments (untrusted) are
// checked against the declared inputs, placed into the templates (encoded where they stand: a path
// segment, a query value, a header, a JSON value; never able to change the URL's origin), the
// secrets inserted into the outgoing request only, the request sent through the one outbound guard,
// and of the answer only the allow-listed fields read, capped, with any echo of a secret masked. The
// result is what the model, the owner's log and the Test button see; none of them ever holds a secret.
import { outboundRequest, OutboundError } from '@parley/common/outbound/request.ts';
import type { OutboundPolicy } from '@parley/common/outbound/guard.ts';
import { withoutControlCharacters } from '@parley/common/control-characters.ts';
import { fill, MAX_READ_BYTES, placeholders } from './action-definition.ts';
import type { ActionDefinition, ActionInput } from './action-definition-schema.ts';

export const MASK = '••••';
export const NEEDS_VERIFIED_VISITOR = 'This action needs a verified visitor';
export const NEEDS_VISITOR_EMAIL = "This action needs the verified visitor's email, and none was given";
const MAX_STRING_INPUT = 500;

export type CallStatus = 'ok' | 'failed' | 'refused';

/** What one run came to: the bot reads `result` (JSON text) only when the status is ok. */
export interface ActionOutcome {
  status: CallStatus;
  /** The failure in the owner's and the model's words ("" when ok). */
  error: string;
  httpStatus: number;
  durationMs: number;
  /** The arguments as used, secrets masked. */
  inputs: Record<string, unknown>;
  fieldsRead: string[];
  /** The allow-listed fields, as JSON text, at most MAX_READ_BYTES; "" unless ok. */
  result: string;
  /** The request as sent, secrets masked (the Test button shows it). */
  request: { method: string; url: string; headers: Record<string, string>; body: string };
}

export interface RunContext {
  policy: OutboundPolicy;
  /** The verified visitor, when identity is known; absent: identity-bound inputs and identified-only actions are refused. An empty email: none told. */
  visitor?: { userId: string; email: string };
}

class Refusal extends Error {}

/** Checks one argument against its declared input; returns the value to place. */
function argument(input: ActionInput, args: Record<string, unknown>, ctx: RunContext): string | number | boolean | undefined {
  if (input.source !== 'model') {
    // Whatever the model put under this name is ignored: the value is the verified visitor's only.
    if (!ctx.visitor) throw new Refusal(NEEDS_VERIFIED_VISITOR);
    if (input.source === 'userId') return ctx.visitor.userId;
    if (!ctx.visitor.email) throw new Refusal(NEEDS_VISITOR_EMAIL);
    return ctx.visitor.email;
  }
  const value = Object.hasOwn(args, input.name) ? args[input.name] : undefined;
  if (value === undefined || value === null || value === '') {
    if (input.required) throw new Refusal(`The input "${input.name}" is required`);
    return undefined;
  }
  let checked: string | number | boolean;
  switch (input.type) {
    case 'string':
      if (typeof value !== 'string' && typeof value !== 'number') throw new Refusal(`The input "${input.name}" must be text`);
      checked = withoutControlCharacters(String(value)).trim();
      if (checked.length > MAX_STRING_INPUT) throw new Refusal(`The input "${input.name}" is longer than ${MAX_STRING_INPUT} characters`);
      break;
    case 'number':
    case 'integer': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n) || (input.type === 'integer' && !Number.isInteger(n)))
        throw new Refusal(`The input "${input.name}" must be ${input.type === 'integer' ? 'a whole number' : 'a number'}`);
      checked = n;
      break;
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw new Refusal(`The input "${input.name}" must be true or false`);
      checked = value;
      break;
  }
  if (input.enum && !input.enum.includes(String(checked)))
    throw new Refusal(`The input "${input.name}" must be one of ${input.enum.join(', ')}`);
  return checked;
}

/** Every declared input checked; unknown arguments are dropped (the model cannot add any). */
export function checkArguments(
  def: ActionDefinition,
  args: Record<string, unknown>,
  ctx: RunContext,
): Map<string, string | number | boolean> {
  if (def.identifiedOnly && !ctx.visitor) throw new Refusal(NEEDS_VERIFIED_VISITOR);
  const values = new Map<string, string | number | boolean>();
  for (const input of def.inputs) {
    const v = argument(input, args, ctx);
    if (v !== undefined) values.set(input.name, v);
  }
  return values;
}

interface BuiltRequest {
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  shown: ActionOutcome['request'];
}

/** The request: placeholders filled (inputs encoded for where they stand), secrets in headers and query only. */
export function buildRequest(
  def: ActionDefinition,
  values: Map<string, string | number | boolean>,
  secrets: Record<string, string>,
): BuiltRequest {
  const inputText = (name: string) => (values.has(name) ? String(values.get(name)) : '');
  const template = new URL(fill(def.url, () => 'x'));
  const url = new URL(fill(def.url, (ref) => encodeURIComponent(inputText(ref.name))));
  if (url.origin !== template.origin) throw new Refusal('The inputs may not change the address of the action');
  const shownUrl = new URL(url);
  for (const q of def.query) {
    url.searchParams.append(
      q.name,
      fill(q.value, (ref) => (ref.kind === 'secret' ? (secrets[ref.name] ?? '') : inputText(ref.name))),
    );
    shownUrl.searchParams.append(
      q.name,
      fill(q.value, (ref) => (ref.kind === 'secret' ? MASK : inputText(ref.name))),
    );
  }
  const headers: Record<string, string> = { 'user-agent': 'ParleyBot/1.0 (+https://parley.example/bot)', accept: 'application/json' };
  const shownHeaders: Record<string, string> = { ...headers };
  for (const h of def.headers) {
    headers[h.name.toLowerCase()] = fill(h.value, (ref) => (ref.kind === 'secret' ? (secrets[ref.name] ?? '') : inputText(ref.name)));
    shownHeaders[h.name.toLowerCase()] = fill(h.value, (ref) => (ref.kind === 'secret' ? MASK : inputText(ref.name)));
  }
  let body: string | undefined;
  if (def.body) {
    body = JSON.stringify(fillJson(JSON.parse(def.body), values));
    headers['content-type'] = shownHeaders['content-type'] = 'application/json';
  }
  return { url: url.href, headers, body, shown: { method: def.method, url: shownUrl.href, headers: shownHeaders, body: body ?? '' } };
}

/** A JSON template's strings filled: a string that is one placeholder becomes the typed value, others text. */
function fillJson(node: unknown, values: Map<string, string | number | boolean>): unknown {
  if (typeof node === 'string') {
    const refs = placeholders(node);
    if (refs.length === 1 && refs[0].raw === node) return values.get(refs[0].name) ?? null;
    return fill(node, (ref) => (values.has(ref.name) ? String(values.get(ref.name)) : ''));
  }
  if (Array.isArray(node)) return node.map((n) => fillJson(n, values));
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fillJson(v, values)]));
  return node;
}

/** The allow-listed fields of a JSON answer (dotted paths; through arrays, each element's), within MAX_READ_BYTES. */
export function readFields(answer: unknown, paths: string[]): { fields: Record<string, unknown>; read: string[] } {
  const fields: Record<string, unknown> = {};
  const read: string[] = [];
  let size = 2;
  for (const path of paths) {
    const value = pick(answer, path.split('.'));
    if (value === undefined) continue;
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8') + path.length + 4;
    if (size + bytes > MAX_READ_BYTES) continue;
    size += bytes;
    fields[path] = value;
    read.push(path);
  }
  return { fields, read };
}

function pick(node: unknown, path: string[]): unknown {
  if (path.length === 0) return node;
  if (Array.isArray(node)) {
    const picked = node.slice(0, 20).map((n) => pick(n, path));
    return picked.every((p) => p === undefined) ? undefined : picked;
  }
  if (node && typeof node === 'object' && Object.hasOwn(node, path[0]))
    return pick((node as Record<string, unknown>)[path[0]], path.slice(1));
  return undefined;
}

/** Every secret's value (and its URL-encoded form) masked in a text: an API that echoes one cannot hand it on. */
export function maskSecrets(text: string, secrets: Record<string, string>): string {
  let out = text;
  for (const value of Object.values(secrets)) {
    if (value.length < 4) continue;
    for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) out = out.split(form).join(MASK);
  }
  return out;
}

/** Runs the action once with the model's (or the Test's) arguments; never throws for the target's or the arguments' faults. */
export async function runAction(
  def: ActionDefinition,
  secrets: Record<string, string>,
  args: Record<string, unknown>,
  ctx: RunContext,
): Promise<ActionOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const shownInputs = JSON.parse(maskSecrets(JSON.stringify(args ?? {}), secrets)) as Record<string, unknown>;
  const outcome = (o: Partial<ActionOutcome> & Pick<ActionOutcome, 'status'>): ActionOutcome => ({
    error: '',
    httpStatus: 0,
    durationMs: elapsed(),
    inputs: shownInputs,
    fieldsRead: [],
    result: '',
    request: { method: def.method, url: '', headers: {}, body: '' },
    ...o,
    ...(o.error ? { error: maskSecrets(o.error, secrets) } : {}),
  });
  let built: BuiltRequest;
  try {
    const values = checkArguments(def, args ?? {}, ctx);
    built = buildRequest(def, values, secrets);
  } catch (err) {
    if (err instanceof Refusal) return outcome({ status: 'refused', error: err.message });
    throw err;
  }
  const request = built.shown;
  try {
    const res = await outboundRequest(
      built.url,
      { method: def.method, headers: built.headers, body: built.body, timeoutMs: def.timeoutMs, maxBytes: def.maxResponseBytes },
      ctx.policy,
    );
    if (res.status < 200 || res.status >= 300)
      return outcome({ status: 'failed', error: `The API answered HTTP ${res.status}`, httpStatus: res.status, request });
    let answer: unknown = null;
    const text = res.body.toString('utf8');
    if (text.trim()) {
      try {
        answer = JSON.parse(text);
      } catch {
        return outcome({ status: 'failed', error: "The API's answer is not valid JSON", httpStatus: res.status, request });
      }
    }
    const { fields, read } = readFields(answer, def.responseFields);
    return outcome({
      status: 'ok',
      httpStatus: res.status,
      fieldsRead: read,
      result: maskSecrets(JSON.stringify(fields), secrets),
      request,
    });
  } catch (err) {
    if (err instanceof OutboundError)
      return outcome({ status: err.failure === 'address' || err.failure === 'scheme' ? 'refused' : 'failed', error: err.message, request });
    throw err;
  }
}
