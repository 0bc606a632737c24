import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import type { Workspace } from '../../../lib/workspace/roles';
import { useDeleteWorkspace } from '../hooks/use-workspace-settings';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { WorkspaceSection } from './workspace-section';

/** The danger zone: deleting the workspace with everything it owns, confirmed with the password (owners, not the personal one). */
export function DeleteWorkspaceCard({ workspace }: { workspace: Workspace }) {
  const { deleteWorkspace, deleting, error, reset } = useDeleteWorkspace();
  const [password, setPassword] = useState('');
  const [confirming, setConfirming] = useState(false);

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    reset();
    setConfirming(true);
  }

  return (
    <WorkspaceSection title="Delete workspace" tone="danger" description={`Permanently delete ${workspace.name}.`}>
      <div className="grid gap-6 md:grid-cols-2">
        <p className="rounded-xl bg-red-50 p-4 text-sm leading-6 text-red-900 ring-1 ring-red-100 ring-inset">
          Deleting the workspace removes its chatbots, their knowledge and conversations, its plan and its members&apos; access. The members
          keep their own accounts. This cannot be undone.
        </p>
        <form onSubmit={handleSubmit} className="space-y-4">
          {error && !confirming ? <Alert>{error}</Alert> : null}
          <TextField
            label="Password"
            name="deleteWorkspacePassword"
            type="password"
            autoComplete="current-password"
            hint="Enter your password to confirm it is you."
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <div className="flex justify-end">
            <Button type="submit" variant="danger">
              Delete workspace
            </Button>
          </div>
        </form>
      </div>
      {confirming ? (
        <ConfirmDialog
          title="Delete workspace"
          confirmLabel="Delete workspace"
          busyLabel="Deleting..."
          busy={deleting}
          error={error}
          onConfirm={() => void deleteWorkspace(password)}
          onClose={() => setConfirming(false)}
        >
          Are you sure you want to delete {workspace.name}? This cannot be undone.
        </ConfirmDialog>
      ) : null}
    </WorkspaceSection>
  );
}
