import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { NotAllowedCard } from '../../../components/workspace/not-allowed-card';
import { Card } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { hasPermission } from '../../../lib/workspace/roles';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { WorkspaceEyebrow } from '../../../components/workspace/workspace-eyebrow';
import { useWebhookEndpoints } from '../hooks/use-webhook-endpoints';
import { EndpointDialog } from './endpoint-dialog';
import { EndpointCard } from './endpoint-card';
import { SecretDialog } from './secret-dialog';

export const WEBHOOKS_NOT_ALLOWED_MESSAGE = 'Only owners and admins can manage the webhooks of this workspace.';

/** /workspace/webhooks: the workspace's endpoints, their secrets and delivery logs (owners and admins). */
export function WebhooksPage() {
  useDocumentTitle('Webhooks');
  const workspace = useWorkspace();
  const allowed = hasPermission(workspace.current, 'webhooks:manage');
  const { endpoints, eventTypes, loading, error } = useWebhookEndpoints(allowed);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);

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

  const addButton = (
    <Button size="sm" onClick={() => setAdding(true)} disabled={eventTypes.length === 0}>
      Add endpoint
    </Button>
  );

  return (
    <PageContainer className="py-8 sm:py-10">
      <div className="mb-8 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0">
          <WorkspaceEyebrow />
          <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">Webhooks</h1>
          <p className="mt-1 text-sm text-gray-600">
            Parley sends the events you choose to your endpoints, signed with each endpoint's secret, and retries when they fail.
          </p>
        </div>
        {allowed && endpoints.length > 0 ? <div className="shrink-0">{addButton}</div> : null}
      </div>
      {!allowed ? (
        <NotAllowedCard message={WEBHOOKS_NOT_ALLOWED_MESSAGE} />
      ) : (
        <div className="space-y-6">
          {error ? <Alert>{error}</Alert> : null}
          {loading ? (
            <div className="flex justify-center py-16 text-brand-600">
              <Spinner className="size-8" label="Loading the webhook endpoints" />
            </div>
          ) : endpoints.length === 0 && !error ? (
            <Card className="px-6 py-12 text-center">
              <h2 className="text-base font-semibold text-gray-900">No endpoints yet</h2>
              <p className="mx-auto mt-1 max-w-md text-sm text-gray-600">
                Add the URL of your server, choose events such as a new conversation or a low credit balance, and Parley will POST them
                there as they happen.
              </p>
              <div className="mt-5 flex justify-center">{addButton}</div>
            </Card>
          ) : (
            endpoints.map((endpoint) => <EndpointCard key={endpoint.id} endpoint={endpoint} eventTypes={eventTypes} />)
          )}
        </div>
      )}

      {adding ? (
        <EndpointDialog
          eventTypes={eventTypes}
          onClose={() => setAdding(false)}
          onCreated={(url, secret) => {
            setAdding(false);
            setCreated({ url, secret });
          }}
        />
      ) : null}
      {created ? <SecretDialog title="Endpoint added" url={created.url} secret={created.secret} onClose={() => setCreated(null)} /> : null}
    </PageContainer>
  );
}
