// The model catalogue: the language models this deployment offers its chatbots, with each one's
// provider, limits, price and the plans that may use it. The operator owns it: the defaults ship in
// `default-catalogue.jsonc` beside this file, and MODEL_CATALOGUE_FILE names a replacement. Chat
// reads it to route an answer and size its credit hold; billing reads it to price the answer; the
// gateway lists it. A malformed catalogue stops the process at start with the file and line named.
//
// Prices are per million tokens in US dollars, as exact decimal strings (at most 4 decimals, as
// billing's money columns need); nothing here is a float.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findNodeAtLocation, parseTree, printParseErrorCode, type ParseError, type Node } from 'jsonc-parser';
import { ConfigError } from '../config.ts';

/** The wire protocols the model layer speaks, one adapter each. */
export const PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

// The catalogue is checked by hand rather than with zod: it is read once at start, and zod (95 modules,
// ≈ 3 MB of heap) was otherwise loaded only for it in billing and chat (docs/adr/0068-memory-at-rest.md).
// Each check reports the first problem as a path and a message, in the fields' order below.

/** A model of the catalogue, as checked. */
export interface CatalogueModel {
  /** The catalogue's id, which chatbots store and usage records name, e.g. `gpt-4o-mini`. */
  id: string;
  provider: Provider;
  /** The provider's own name for the model when it differs from `id` (e.g. `llama3.1` on Ollama). */
  providerModel?: string;
  displayName: string;
  /** Tokens the model reads in one call: system prompt, knowledge, history and the question together. */
  contextWindow: number;
  /** The most tokens it writes in one answer. */
  maxOutputTokens: number;
  inputPricePerMillion: string;
  outputPricePerMillion: string;
  capabilities: { streaming: boolean; tools: boolean; images: boolean };
  /** The plans whose chatbots may use it. */
  plans: Plan[];
}

type Path = (string | number)[];

/** The first problem found: where, and what is wrong there. */
class CatalogueIssue {
  readonly path: Path;
  readonly message: string;
  constructor(path: Path, message: string) {
    this.path = path;
    this.message = message;
  }
}

const PRICE = /^\d{1,6}(\.\d{1,4})?$/;
const MODEL_ID = /^[a-z0-9][a-z0-9._:-]{0,99}$/i;
const MODEL_FIELDS = [
  'id',
  'provider',
  'providerModel',
  'displayName',
  'contextWindow',
  'maxOutputTokens',
  'inputPricePerMillion',
  'outputPricePerMillion',
  'capabilities',
  'plans',
];
const CAPABILITIES = ['streaming', 'tools', 'images'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function object(v: unknown, path: Path): Record<string, unknown> {
  if (!isObject(v)) throw new CatalogueIssue(path, 'must be an object');
  return v;
}

/** An object's fields not in `fields`, reported once the known ones passed (a strict object). */
function noUnknownFields(v: Record<string, unknown>, path: Path, fields: readonly string[]): void {
  const unknown = Object.keys(v).filter((k) => !fields.includes(k));
  if (unknown.length)
    throw new CatalogueIssue(path, `has unknown ${unknown.length === 1 ? 'field' : 'fields'} ${unknown.map((k) => `"${k}"`).join(', ')}`);
}

function string(v: unknown, path: Path, opts: { min?: number; max?: number; pattern?: RegExp; patternMessage?: string } = {}): string {
  if (v === undefined) throw new CatalogueIssue(path, 'is required');
  if (typeof v !== 'string') throw new CatalogueIssue(path, 'must be a string');
  if (opts.min !== undefined && v.length < opts.min)
    throw new CatalogueIssue(path, `must have at least ${opts.min} character${opts.min === 1 ? '' : 's'}`);
  if (opts.max !== undefined && v.length > opts.max) throw new CatalogueIssue(path, `must have at most ${opts.max} characters`);
  if (opts.pattern && !opts.pattern.test(v)) throw new CatalogueIssue(path, opts.patternMessage!);
  return v;
}

function integer(v: unknown, path: Path, min: number, max: number): number {
  if (v === undefined) throw new CatalogueIssue(path, 'is required');
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new CatalogueIssue(path, 'must be an integer');
  if (v < min || v > max) throw new CatalogueIssue(path, `must be from ${min} to ${max}`);
  return v;
}

function oneOf<T extends string>(v: unknown, path: Path, values: readonly T[]): T {
  if (v === undefined) throw new CatalogueIssue(path, 'is required');
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v))
    throw new CatalogueIssue(path, `must be one of ${values.map((x) => `"${x}"`).join(', ')}`);
  return v as T;
}

function boolean(v: unknown, path: Path): boolean {
  if (v === undefined) throw new CatalogueIssue(path, 'is required');
  if (typeof v !== 'boolean') throw new CatalogueIssue(path, 'must be true or false');
  return v;
}

function array(v: unknown, path: Path, min: number): unknown[] {
  if (v === undefined) throw new CatalogueIssue(path, 'is required');
  if (!Array.isArray(v)) throw new CatalogueIssue(path, 'must be an array');
  if (v.length < min) throw new CatalogueIssue(path, `must list at least ${min}`);
  return v;
}

const price = (v: unknown, path: Path) =>
  string(v, path, { pattern: PRICE, patternMessage: 'must be a decimal string of US dollars with at most 4 decimals, e.g. "0.15"' });

function checkModel(v: unknown, path: Path): CatalogueModel {
  const m = object(v, path);
  const at = (k: string): Path => [...path, k];
  const model: CatalogueModel = {
    id: string(m.id, at('id'), { pattern: MODEL_ID, patternMessage: 'must be 1-100 letters, digits, ".", "_", ":" or "-"' }),
    provider: oneOf(m.provider, at('provider'), PROVIDERS),
    ...(m.providerModel === undefined ? {} : { providerModel: string(m.providerModel, at('providerModel'), { min: 1, max: 200 }) }),
    displayName: string(m.displayName, at('displayName'), { min: 1, max: 100 }),
    contextWindow: integer(m.contextWindow, at('contextWindow'), 1024, 10_000_000),
    maxOutputTokens: integer(m.maxOutputTokens, at('maxOutputTokens'), 1, 1_000_000),
    inputPricePerMillion: price(m.inputPricePerMillion, at('inputPricePerMillion')),
    outputPricePerMillion: price(m.outputPricePerMillion, at('outputPricePerMillion')),
    capabilities: checkCapabilities(m.capabilities, at('capabilities')),
    plans: array(m.plans, at('plans'), 1).map((p, i) => oneOf(p, [...at('plans'), i], PLANS)),
  };
  noUnknownFields(m, path, MODEL_FIELDS);
  return model;
}

function checkCapabilities(v: unknown, path: Path): CatalogueModel['capabilities'] {
  if (v === undefined) return { streaming: true, tools: false, images: false };
  const c = object(v, path);
  const capabilities = {
    streaming: boolean(c.streaming, [...path, 'streaming']),
    tools: boolean(c.tools, [...path, 'tools']),
    images: boolean(c.images, [...path, 'images']),
  };
  noUnknownFields(c, path, CAPABILITIES);
  return capabilities;
}

/** The catalogue's default model and its models, checked; throws the first CatalogueIssue. */
function checkCatalogue(v: unknown): { default: string; models: CatalogueModel[] } {
  const fields = ['default', 'models'];
  const c = object(v, []);
  // The model a new chatbot gets, and the one an unknown stored id falls back to.
  const def = string(c.default, ['default']);
  const models = array(c.models, ['models'], 1).map((m, i) => checkModel(m, ['models', i]));
  noUnknownFields(c, [], fields);
  const seen = new Set<string>();
  models.forEach((m, i) => {
    if (seen.has(m.id)) throw new CatalogueIssue(['models', i, 'id'], `"${m.id}" is listed twice`);
    seen.add(m.id);
  });
  const model = models.find((m) => m.id === def);
  if (!model) throw new CatalogueIssue(['default'], `"${def}" is not one of the models listed`);
  if (!model.plans.includes('free')) throw new CatalogueIssue(['default'], 'the default model must be offered on the free plan');
  return { default: def, models };
}

export interface ModelCatalogue {
  /** Where it was read from, for logs. */
  source: string;
  defaultModel: CatalogueModel;
  models: readonly CatalogueModel[];
  /** The model of this id, or undefined. */
  find(id: string): CatalogueModel | undefined;
}

export const DEFAULT_CATALOGUE_FILE = fileURLToPath(new URL('./default-catalogue.jsonc', import.meta.url));

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Parses a catalogue's text (JSON with comments). Throws ConfigError naming `source` and the line of
 * the first problem: a syntax error, or a value the schema refuses.
 */
export function parseCatalogue(text: string, source: string): ModelCatalogue {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !tree) {
    const first = errors[0];
    const where = first ? `line ${lineOf(text, first.offset)}` : 'line 1';
    throw new ConfigError(`model catalogue ${source}, ${where}: ${first ? printParseErrorCode(first.error) : 'empty file'}`);
  }
  const raw: unknown = nodeValue(tree);
  let checked: { default: string; models: CatalogueModel[] };
  try {
    checked = checkCatalogue(raw);
  } catch (err) {
    if (!(err instanceof CatalogueIssue)) throw err;
    const node = deepestNode(tree, err.path);
    const name = err.path.length
      ? err.path
          .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
          .join('')
          .replace(/^\./, '')
      : 'catalogue';
    throw new ConfigError(`model catalogue ${source}, line ${lineOf(text, node.offset)}: ${name} ${err.message}`);
  }
  const models = checked.models;
  const byId = new Map(models.map((m) => [m.id, m]));
  return { source, defaultModel: byId.get(checked.default)!, models, find: (id) => byId.get(id) };
}

/** The node at `path`, or its nearest ancestor that exists (a missing field is reported at its object). */
function deepestNode(tree: Node, path: (string | number)[]): Node {
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(tree, path.slice(0, n));
    if (node) return node;
  }
  return tree;
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries((node.children ?? []).map((p) => [p.children![0]!.value as string, nodeValue(p.children![1]!)]));
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/** Reads the catalogue from MODEL_CATALOGUE_FILE, or the shipped defaults. */
export function loadCatalogue(env: NodeJS.ProcessEnv = process.env): ModelCatalogue {
  const file = env.MODEL_CATALOGUE_FILE?.trim() || DEFAULT_CATALOGUE_FILE;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`MODEL_CATALOGUE_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseCatalogue(text, file);
}

/** One US dollar in the units the catalogue's money is counted in: 1e-10 dollars, exact. */
export const DOLLAR_UNITS = 10_000_000_000n;

/** A decimal string of US dollars (at most 10 decimals) in 1e-10 units, to add or compare costs exactly. */
export function dollarUnits(dollars: string): bigint {
  const [whole, frac = ''] = dollars.split('.');
  return BigInt(whole!) * DOLLAR_UNITS + BigInt(frac.padEnd(10, '0'));
}

/** 1e-10 units as a decimal string of US dollars, trailing zeros dropped. */
export function unitsToDollars(units: bigint): string {
  const s = units.toString().padStart(11, '0');
  const int = s.slice(0, -10);
  const dec = s.slice(-10).replace(/0+$/, '');
  return dec ? `${int}.${dec}` : int;
}

/**
 * The cost of `tokens` at `pricePerMillion` in 1e-10 dollars, exact: 4 decimals of the price and 6
 * of the million, computed in integers.
 */
export function tokenCostUnits(tokens: number, pricePerMillion: string): bigint {
  const [whole, frac = ''] = pricePerMillion.split('.');
  const tenThousandths = BigInt(whole!) * 10_000n + BigInt(frac.padEnd(4, '0'));
  return BigInt(tokens) * tenThousandths;
}

/** US dollars, exact, of `tokens` at `pricePerMillion`: a decimal string with up to 10 decimals. */
export const tokenCost = (tokens: number, pricePerMillion: string): string => unitsToDollars(tokenCostUnits(tokens, pricePerMillion));

/** The exact cost, in 1e-10 dollars, of an answer of `model` that read `promptTokens` and wrote `completionTokens`. */
export const answerCostUnits = (
  model: Pick<CatalogueModel, 'inputPricePerMillion' | 'outputPricePerMillion'>,
  promptTokens: number,
  completionTokens: number,
): bigint => tokenCostUnits(promptTokens, model.inputPricePerMillion) + tokenCostUnits(completionTokens, model.outputPricePerMillion);
