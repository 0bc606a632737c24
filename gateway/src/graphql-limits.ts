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
import { CONTROL_CHARACTERS, isCleanText } from './rest/input.ts';

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
