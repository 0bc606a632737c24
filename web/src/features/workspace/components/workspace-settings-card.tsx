import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import type { Workspace } from '../../../lib/workspace/roles';
import { Switch } from '../../../components/ui/switch';
import { useRenameWorkspace, useRequireTwoFactor } from '../hooks/use-workspace-settings';
import { WorkspaceSection } from './workspace-section';

/** The workspace's name and whether its members must use two-factor sign-in (owners and admins). */
export function WorkspaceSettingsCard({ workspace }: { workspace: Workspace }) {
  const { rename, renaming, error, success } = useRenameWorkspace();
  const requirement = useRequireTwoFactor();
  const [name, setName] = useState(workspace.name);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await rename(name);
  }

  return (
    <WorkspaceSection title="Workspace settings" description="The name every member sees in the switcher.">
      <form onSubmit={handleSubmit} className="space-y-4">
        {error ? <Alert>{error}</Alert> : success ? <Alert tone="success">{success}</Alert> : null}
        <TextField label="Workspace name" name="workspaceName" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <div className="flex justify-end">
          <Button type="submit" busy={renaming} busyLabel="Saving...">
            Save
          </Button>
        </div>
      </form>
      <div className="mt-6 space-y-3 border-t border-gray-100 pt-6">
        {requirement.error ? <Alert>{requirement.error}</Alert> : null}
        <Switch
          label="Require two-factor sign-in for members"
          description="Members without it are asked to set it up before they can use this workspace. Turn it on for your own account first."
          checked={workspace.requireTwoFactor}
          disabled={requirement.saving}
          onChange={(enabled) => void requirement.setRequired(enabled)}
        />
      </div>
    </WorkspaceSection>
  );
}
