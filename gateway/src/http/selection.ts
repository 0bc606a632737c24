// Whether a GraphQL query selects a field below the current one, looking through fragments, so a
// resolver can ask a service for data only when the page wants it.
import type { FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

export function selectsField(info: GraphQLResolveInfo, field: string): boolean {
  return info.fieldNodes.some(
    (node) => node.selectionSet !== undefined && inSelection(node.selectionSet, field, info.fragments, new Set()),
  );
}

function inSelection(set: SelectionSetNode, field: string, fragments: Record<string, FragmentDefinitionNode>, seen: Set<string>): boolean {
  return set.selections.some((selection) => {
    if (selection.kind === 'Field') return selection.name.value === field;
    if (selection.kind === 'InlineFragment') return inSelection(selection.selectionSet, field, fragments, seen);
    const name = selection.name.value;
    if (seen.has(name) || !fragments[name]) return false;
    seen.add(name);
    return inSelection(fragments[name].selectionSet, field, fragments, seen);
  });
}
