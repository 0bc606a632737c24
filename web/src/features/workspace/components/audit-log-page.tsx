import { useMemo, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { ButtonLink } from '../../../components/ui/button-link';
import { NotAllowedCard } from '../../../components/workspace/not-allowed-card';
import { Card } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { SelectField } from '../../../components/ui/select-field';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { hasPermission } from '../../../lib/workspace/roles';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { AUDIT_ACTION_FILTERS, dayRange } from '../audit-log-labels';
import { useAuditLog } from '../hooks/use-audit-log';
import { AuditLogTable } from './audit-log-table';
import { WorkspacePageHeader } from './workspace-page-header';

export const AUDIT_LOG_NOT_ALLOWED_MESSAGE = 'Only owners and admins can see the audit log of this workspace.';

/** /workspace/audit-log: who changed what in the workspace, newest first (owners and admins). */
export function AuditLogPage() {
  useDocumentTitle('Audit log');
  const workspace = useWorkspace();
  const allowed = hasPermission(workspace.current, 'audit:read');
  const [action, setAction] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const filter = useMemo(() => ({ ...(action ? { action } : {}), ...dayRange(from, to) }), [action, from, to]);
  const log = useAuditLog(filter, allowed);

  if (!workspace.current) {
    return (
      <PageContainer className="py-8 sm:py-10">
        {workspace.error ? (
          <Alert>{workspace.error}</Alert>
        ) : (
          <div className="flex justify-center py-16 text-brand-600">
            <Spinner className="size-8" label="Loading workspace" />
          </div>
        )}
      </PageContainer>
    );
  }

  return (
    <PageContainer className="py-8 sm:py-10">
      <WorkspacePageHeader
        title="Audit log"
        subtitle="Membership, role, invitation, ownership, workspace and billing changes, newest first."
        action={
          <ButtonLink to="/workspace/members" variant="secondary" size="sm">
            Members
          </ButtonLink>
        }
      />
      {!allowed ? (
        <NotAllowedCard message={AUDIT_LOG_NOT_ALLOWED_MESSAGE} />
      ) : (
        <Card>
          <form
            className="grid gap-4 border-b border-gray-100 px-6 py-4 sm:grid-cols-3"
            onSubmit={(e) => e.preventDefault()}
            aria-label="Filter the audit log"
          >
            <SelectField
              label="Action"
              name="action"
              value={action}
              options={AUDIT_ACTION_FILTERS}
              onChange={(e) => setAction(e.target.value)}
            />
            <TextField label="From" name="from" type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} />
            <TextField label="To" name="to" type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />
          </form>
          {log.error ? <Alert className="mx-6 my-5">{log.error}</Alert> : null}
          {log.loading ? (
            <div className="flex justify-center py-10 text-brand-600">
              <Spinner className="size-6" label="Loading the audit log" />
            </div>
          ) : log.events.length === 0 ? (
            <p className="px-6 py-10 text-center text-sm text-gray-600">
              No entries{filter.action || filter.from || filter.to ? ' match the filter' : ' yet'}.
            </p>
          ) : (
            <>
              <AuditLogTable events={log.events} />
              {log.hasMore ? (
                <div className="flex justify-center border-t border-gray-100 px-6 py-4">
                  <Button variant="secondary" busy={log.loadingMore} busyLabel="Loading..." onClick={() => void log.loadMore()}>
                    Load more
                  </Button>
                </div>
              ) : null}
            </>
          )}
        </Card>
      )}
    </PageContainer>
  );
}
