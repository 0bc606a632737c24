import { useWorkspace } from '../../lib/workspace/workspace-context';

/** The current workspace's name above a page's heading, so it is clear whose chatbots, usage or plan are shown. */
export function WorkspaceEyebrow() {
  const { current } = useWorkspace();
  if (!current) return null;
  return (
    <p className="mb-1 truncate text-sm font-medium text-brand-700" data-testid="workspace-name">
      {current.name}
    </p>
  );
}
