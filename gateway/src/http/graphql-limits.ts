// What one GraphQL request may ask for. One HTTP request must not turn into hundreds of service
// calls or megabytes of answer (aliases, deep nesting, lists inside lists), nor carry text no service
// should store. The numbers leave the web app's own operations far inside the limits (a test checks
// every one of them).
import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  visit,
  type ASTVisitor,
  type GraphQLCompositeType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import type { RequestHandler } from 'express';
import { HttpError, selectionSetsNestedTooDeep, valuesNestedTooDeep } from './errors.ts';
import { CONTROL_CHARACTERS, isCleanText } from './input.ts';

export const OPERATION_BOUNDS = {
  /** Tokens in one document: bounds the parser's recursion, so deep nesting is a syntax error, not a stack overflow. */
  maxTokens: 2000,
  /** Nesting of fields (a root field is depth 1). */
  maxDepth: 10,
  /** Root fields, aliases included: each is at least one service call. */
  maxRootFields: 20,
  /** Fields in the operation with its fragments expanded, aliases included. */
  maxFields: 150,
  /** Fields weighted by the lists around them (each list counts as LIST_SIZE items). */
  maxCost: 2000,
  /** Lists and input objects inside one another, in arguments, variable definitions and variables. */
  maxValueDepth: 10,
  /**
   * Selection sets inside one another as written. Inline fragments nest them without adding field
   * depth, hence twice maxDepth; the field depth itself is checked once the document is parsed.
   */
  maxSelectionSetDepth: 20,
};

/** The assumed length of a list when weighing an operation (an owner has few chatbots, a knowledge base few entries). */
const LIST_SIZE = 10;

/** Refuses subscription operations: the gateway serves none, and executing one would be a 500. */
export const noSubscriptions: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation === 'subscription') context.reportError(new GraphQLError('Subscriptions are not supported', { nodes: node }));
  },
});

class BoundExceeded extends Error {}

/**
 * Refuses an operation that is too deep, too wide or too costly, counting through fragments. The
 * walk stops at the first limit passed, so its own work is bounded however the document is built.
 */
export const operationBounds: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  OperationDefinition(node) {
    const root = context.getSchema().getRootType(node.operation);
    if (!root) return false;
    let rootFields = 0;
    let fields = 0;
    let cost = 0;
    const refuse = (message: string): never => {
      context.reportError(new GraphQLError(message, { nodes: node }));
      throw new BoundExceeded();
    };
    const walk = (
      selectionSet: SelectionSetNode,
      parent: GraphQLCompositeType,
      depth: number,
      weight: number,
      spreads: ReadonlySet<string>,
    ): void => {
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          // Introspection is cheap (no service behind it) and is off in production.
          if (selection.name.value.startsWith('__')) continue;
          fields += 1;
          cost += weight;
          if (depth === 1) rootFields += 1;
          if (rootFields > OPERATION_BOUNDS.maxRootFields)
            refuse(`An operation may ask for at most ${OPERATION_BOUNDS.maxRootFields} root fields`);
          if (depth > OPERATION_BOUNDS.maxDepth) refuse(`Fields may be nested at most ${OPERATION_BOUNDS.maxDepth} deep`);
          if (fields > OPERATION_BOUNDS.maxFields) refuse(`An operation may select at most ${OPERATION_BOUNDS.maxFields} fields`);
          if (cost > OPERATION_BOUNDS.maxCost) refuse('The operation asks for too much at once; split it into smaller ones');
          if (!selection.selectionSet) continue;
          // Unknown fields are reported by graphql's own rules; their subtree is not weighed.
          const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
          const type = def && getNamedType(def.type);
          if (!def || !isCompositeType(type)) continue;
          const nextWeight = isListType(getNullableType(def.type)) ? weight * LIST_SIZE : weight;
          walk(selection.selectionSet, type, depth + 1, nextWeight, spreads);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const type = selection.typeCondition ? context.getSchema().getType(selection.typeCondition.name.value) : parent;
          if (isCompositeType(type)) walk(selection.selectionSet, type, depth, weight, spreads);
        } else {
          const name = selection.name.value;
          // A fragment cycle is reported by graphql's NoFragmentCycles; here it just ends the walk.
          if (spreads.has(name)) continue;
          const fragment = context.getFragment(name);
          const type = fragment && context.getSchema().getType(fragment.typeCondition.name.value);
          if (fragment && isCompositeType(type)) walk(fragment.selectionSet, type, depth, weight, new Set(spreads).add(name));
        }
      }
    };
    try {
      walk(node.selectionSet, root, 1, 1, new Set());
    } catch (err) {
      if (!(err instanceof BoundExceeded)) throw err;
    }
    return false;
  },
});

const badText = () => new GraphQLError(CONTROL_CHARACTERS, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });

function hasUncleanText(value: unknown): boolean {
  if (typeof value === 'string') return !isCleanText(value);
  if (Array.isArray(value)) return value.some(hasUncleanText);
  if (value && typeof value === 'object') return Object.values(value).some(hasUncleanText);
  return false;
}

/**
 * Refuses control characters and lone surrogates in any string a request carries, as variables or
 * as literals in the document, before a resolver can hand them to a service (the REST paths check
 * the same in rest/input.ts).
 */
export const cleanTextPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request, document }) {
        if (hasUncleanText(request.variables)) throw badText();
        let clean = true;
        visit(document, {
          StringValue(node) {
            if (!isCleanText(node.value)) clean = false;
          },
        });
        if (!clean) throw badText();
      },
    };
  },
};

/**
 * How deep a document nests, read from its text: selection sets (`{` outside parentheses) and
 * values (`[` and `{` inside them: list and object arguments, variable definitions' types and
 * defaults). Strings and comments are skipped; unbalanced brackets are left to the parser to report.
 * graphql's parser recurses once per level (maxTokens alone lets `[[[[…` overflow the stack before
 * the token limit is reached), so this runs before it. Linear, no recursion.
 */
export function documentNesting(source: string): { selectionSets: number; values: number } {
  const open: Array<'selection' | 'value'> = [];
  let parentheses = 0;
  let selectionSets = 0;
  let values = 0;
  let selectionDepth = 0;
  let valueDepth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === '"') {
      if (source.startsWith('"""', i)) {
        // A block string ends at the next unescaped """ (\""" is an escaped one).
        i += 3;
        while (i < source.length && !source.startsWith('"""', i)) i += source.startsWith('\\"""', i) ? 4 : 1;
        i += 2;
      } else {
        // A string ends at its closing quote, or (unterminated: a syntax error) at the line's end.
        i++;
        while (i < source.length && source[i] !== '"' && source[i] !== '\n' && source[i] !== '\r') i += source[i] === '\\' ? 2 : 1;
      }
    } else if (c === '(') {
      parentheses++;
    } else if (c === ')') {
      parentheses = Math.max(0, parentheses - 1);
    } else if (c === '[' || c === '{') {
      const kind = c === '{' && parentheses === 0 ? 'selection' : 'value';
      open.push(kind);
      if (kind === 'selection') selectionSets = Math.max(selectionSets, ++selectionDepth);
      else values = Math.max(values, ++valueDepth);
    } else if (c === ']' || c === '}') {
      const kind = open.pop();
      if (kind === 'selection') selectionDepth--;
      else if (kind === 'value') valueDepth--;
    }
  }
  return { selectionSets, values };
}

/** How deep arrays and objects nest in a JSON value (a scalar is 0); stops counting past `max`. */
export function jsonDepth(value: unknown, max: number): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (!node || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > max) return deepest;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** What is wrong with one GraphQL request's nesting (its query text and its variables), if anything. */
function nestingRefusal(request: unknown): string | undefined {
  if (!request || typeof request !== 'object') return undefined;
  const { query, variables } = request as { query?: unknown; variables?: unknown };
  if (typeof query === 'string') {
    const nesting = documentNesting(query);
    if (nesting.values > OPERATION_BOUNDS.maxValueDepth) return valuesNestedTooDeep(OPERATION_BOUNDS.maxValueDepth);
    if (nesting.selectionSets > OPERATION_BOUNDS.maxSelectionSetDepth)
      return selectionSetsNestedTooDeep(OPERATION_BOUNDS.maxSelectionSetDepth);
  }
  let parsed = variables;
  if (typeof variables === 'string') {
    // A GET request's variables, as Apollo will read them; a malformed one is Apollo's to refuse.
    try {
      parsed = JSON.parse(variables);
    } catch {
      return undefined;
    }
  }
  // The variables object holds the values; each value's own lists and objects are what is counted.
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    if (Object.values(parsed).some((v) => jsonDepth(v, OPERATION_BOUNDS.maxValueDepth) > OPERATION_BOUNDS.maxValueDepth))
      return valuesNestedTooDeep(OPERATION_BOUNDS.maxValueDepth);
  }
  return undefined;
}

/**
 * Refuses, before graphql parses it, a request whose document or variables nest deeper than OPERATION_BOUNDS
 * allows: the parser, validation and the gateway's own checks recurse once per level, and a deep
 * enough request would otherwise end in the runtime's stack overflow instead of a clear 400.
 */
export const refuseDeepNesting: RequestHandler = (req, _res, next) => {
  const payload: unknown = req.method === 'GET' ? req.query : req.body;
  const requests = Array.isArray(payload) ? payload : [payload];
  for (const request of requests) {
    const refusal = nestingRefusal(request);
    if (refusal) return next(new HttpError(400, refusal));
  }
  next();
};
