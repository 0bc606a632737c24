import { useMutation } from '@apollo/client/react';
import { CreateWorkspaceMutation } from '../../../lib/workspace/graphql/create-workspace-mutation';
import { useSwitchWorkspace } from './use-switch-workspace';
import { useWorkspaceAction } from './use-workspace-action';

export const CREATE_WORKSPACE_FAILED_MESSAGE = 'Could not create the workspace. Please try again.';
export const WORKSPACE_NAME_REQUIRED_MESSAGE = 'Please enter a name for the workspace.';

/** Creates a workspace (the creator is its owner) and switches to it. */
export function useCreateWorkspace() {
  const [mutate] = useMutation(CreateWorkspaceMutation);
  const switchTo = useSwitchWorkspace();
  const action = useWorkspaceAction(CREATE_WORKSPACE_FAILED_MESSAGE);

  async function createWorkspace(name: string): Promise<boolean> {
    if (!name.trim()) {
      action.setError(WORKSPACE_NAME_REQUIRED_MESSAGE);
      return false;
    }
    let id: string | undefined;
    const created = await action.run(async () => {
      const { data } = await mutate({ variables: { name: name.trim() } });
      if (!data) throw new Error('empty createWorkspace response');
      id = data.createWorkspace.id;
    });
    if (created && id) await switchTo(id);
    return created;
  }

  return { createWorkspace, creating: action.busy, error: action.error, reset: action.reset };
}
