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
import { z } from 'zod';
import { ConfigError } from '../config.ts';

/** The wire protocols the model layer speaks, one adapter each. */
export const PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

const price = z.string().regex(/^\d{1,6}(\.\d{1,4})?$/, 'must be a decimal string of US dollars with at most 4 decimals, e.g. "0.15"');

const modelSchema = z
  .object({
    /** The catalogue's id, which chatbots store and usage records name, e.g. `gpt-4o-mini`. */
    id: z.string().regex(/^[a-z0-9][a-z0-9._:-]{0,99}$/i, 'must be 1-100 letters, digits, ".", "_", ":" or "-"'),
    provider: z.enum(PROVIDERS),
    /** The provider's own name for the model when it differs from `id` (e.g. `llama3.1` on Ollama). */
    providerModel: z.string().min(1).max(200).optional(),
    displayName: z.string().min(1).max(100),
    /** Tokens the model reads in one call: system prompt, knowledge, history and the question together. */
    contextWindow: z.number().int().min(1024).max(10_000_000),
    /** The most tokens it writes in one answer. */
    maxOutputTokens: z.number().int().min(1).max(1_000_000),
    inputPricePerMillion: price,
    outputPricePerMillion: price,
    capabilities: z
      .object({ streaming: z.boolean(), tools: z.boolean(), images: z.boolean() })
      .strict()
      .default({ streaming: true, tools: false, images: false }),
    /** The plans whose chatbots may use it. */
    plans: z.array(z.enum(PLANS)).min(1),
  })
  .strict();

const catalogueSchema = z
  .object({
    /** The model a new chatbot gets, and the one an unknown stored id falls back to. */
    default: z.string(),
    models: z.array(modelSchema).min(1),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.models.forEach((m, i) => {
      if (seen.has(m.id)) ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `"${m.id}" is listed twice` });
      seen.add(m.id);
    });
    const def = c.models.find((m) => m.id === c.default);
    if (!def) ctx.addIssue({ code: 'custom', path: ['default'], message: `"${c.default}" is not one of the models listed` });
    else if (!def.plans.includes('free'))
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'the default model must be offered on the free plan' });
  });

export type CatalogueModel = z.infer<typeof modelSchema>;

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
  const parsed = catalogueSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number');
    const node = deepestNode(tree, path);
    const name = path.length
      ? path
          .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
          .join('')
          .replace(/^\./, '')
      : 'catalogue';
    throw new ConfigError(`model catalogue ${source}, line ${lineOf(text, node.offset)}: ${name} ${issue.message}`);
  }
  const models = parsed.data.models;
  const byId = new Map(models.map((m) => [m.id, m]));
  return { source, defaultModel: byId.get(parsed.data.default)!, models, find: (id) => byId.get(id) };
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
