import type { ReactNode } from 'react';
import { Alert } from './alert';
import { Button } from './button';
import { Dialog } from './dialog';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}

/** "Are you sure?" for a change that cannot simply be taken back (a member removed, a workspace deleted, an endpoint deleted, a secret rolled). */
export function ConfirmDialog({ title, children, confirmLabel, busyLabel, busy, error, onConfirm, onClose }: ConfirmDialogProps) {
  return (
    <Dialog title={title} description={children} onClose={onClose}>
      <div className="space-y-4">
        {error ? <Alert>{error}</Alert> : null}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} busyLabel={busyLabel} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
