import { useEffect, useMemo, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { NotAllowedCard } from '../../../components/workspace/not-allowed-card';
import { Card } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { SelectField } from '../../../components/ui/select-field';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { WorkspaceEyebrow } from '../../../components/workspace/workspace-eyebrow';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { hasPermission } from '../../../lib/workspace/roles';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useLeadExport } from '../hooks/use-lead-export';
import { useLeads } from '../hooks/use-leads';
import { isFiltered, NO_FILTER, type LeadsFilter } from '../leads-filter';
import { LeadsTable } from './leads-table';

export const LEADS_NOT_ALLOWED_MESSAGE = "Leads are visitors' contact details: agents, admins and owners of this workspace can see them.";

/** /leads: the contacts visitors left in the workspace's chatbots, newest first, with their CSV (every plan). */
export function LeadsPage() {
  useDocumentTitle('Leads');
  const workspace = useWorkspace();
  // Asked only once the workspace (and so the member's role) is known.
  const allowed = hasPermission(workspace.current, 'conversations:read');
  const { chatbots, refresh } = useChatbots();
  const [filter, setFilter] = useState<LeadsFilter>(NO_FILTER);
  const leads = useLeads(filter, allowed);
  const exporter = useLeadExport();
  const change = (patch: Partial<LeadsFilter>) => setFilter((current) => ({ ...current, ...patch }));

  // The chatbot filter and the table's names come from the workspace's list (throttled, shared).
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const chatbotNames = useMemo(() => new Map(chatbots.map((c) => [c.id, c.name])), [chatbots]);
  const chatbotOptions = useMemo(
    () => [{ value: '', label: 'All chatbots' }, ...chatbots.map((c) => ({ value: c.id, label: c.name }))],
    [chatbots],
  );

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
      <div className="mb-8 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0">
          <WorkspaceEyebrow />
          <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">Leads</h1>
          <p className="mt-1 text-sm text-gray-600">Contact details visitors left in your chatbots' lead forms, newest first.</p>
        </div>
        {allowed ? (
          <div className="shrink-0">
            <Button variant="secondary" busy={exporter.downloading} busyLabel="Exporting..." onClick={() => void exporter.download(filter)}>
              Export CSV
            </Button>
          </div>
        ) : null}
      </div>

      {!allowed ? (
        <NotAllowedCard message={LEADS_NOT_ALLOWED_MESSAGE} />
      ) : (
        <Card>
          <form
            className="grid gap-4 border-b border-gray-100 px-6 py-4 sm:grid-cols-3"
            onSubmit={(e) => e.preventDefault()}
            aria-label="Filter the leads"
          >
            <SelectField
              label="Chatbot"
              name="chatbot"
              value={filter.chatbotId}
              options={chatbotOptions}
              onChange={(e) => change({ chatbotId: e.target.value })}
            />
            <TextField
              label="From"
              name="from"
              type="date"
              value={filter.startDate}
              max={filter.endDate || undefined}
              onChange={(e) => change({ startDate: e.target.value })}
            />
            <TextField
              label="To"
              name="to"
              type="date"
              value={filter.endDate}
              min={filter.startDate || undefined}
              onChange={(e) => change({ endDate: e.target.value })}
            />
          </form>
          {exporter.error ? <Alert className="mx-6 mt-5">{exporter.error}</Alert> : null}
          {leads.error ? <Alert className="mx-6 my-5">{leads.error}</Alert> : null}
          {leads.loading ? (
            <div className="flex justify-center py-10 text-brand-600">
              <Spinner className="size-6" label="Loading the leads" />
            </div>
          ) : leads.leads.length === 0 ? (
            <div className="px-6 py-12 text-center">
              <p className="text-sm font-medium text-gray-900">{isFiltered(filter) ? 'No leads match the filter.' : 'No leads yet.'}</p>
              {isFiltered(filter) ? null : (
                <p className="mt-1 text-sm text-gray-600">
                  Turn on a chatbot's lead form in its settings to collect visitors' contact details.
                </p>
              )}
            </div>
          ) : (
            <>
              <LeadsTable leads={leads.leads} chatbotNames={chatbotNames} />
              {leads.hasMore ? (
                <div className="flex justify-center border-t border-gray-100 px-6 py-4">
                  <Button variant="secondary" busy={leads.loadingMore} busyLabel="Loading..." onClick={() => void leads.loadMore()}>
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
