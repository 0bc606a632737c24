import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Dialog } from '../../../components/ui/dialog';
import { TextField } from '../../../components/ui/text-field';
import { useCreateWorkspace } from '../hooks/use-create-workspace';

/** Names a new workspace; creating it switches to it. */
export function CreateWorkspaceDialog({ onClose }: { onClose: () => void }) {
  const { createWorkspace, creating, error } = useCreateWorkspace();
  const [name, setName] = useState('');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (await createWorkspace(name)) onClose();
  }

  return (
    <Dialog
      title="Create workspace"
      description="A workspace has its own chatbots, plan and members. You will be its owner."
      onClose={onClose}
    >
      <form onSubmit={handleSubmit} className="space-y-4">
        {error ? <Alert>{error}</Alert> : null}
        <TextField
          label="Workspace name"
          name="workspaceName"
          maxLength={100}
          placeholder="Acme Support Team"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={creating} busyLabel="Creating...">
            Create workspace
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
