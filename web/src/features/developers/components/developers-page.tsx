import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { ButtonLink } from '../../../components/ui/button-link';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import type { ApiKey } from '../api-keys';
import type { IssuedSecret } from '../hooks/use-api-key-actions';
import { useDevelopers } from '../hooks/use-developers';
import { ApiKeysList } from './api-keys-list';
import { CreateApiKeyDialog } from './create-api-key-dialog';
import { ProviderKeysCard } from './provider-keys-card';
import { QuickStartCard } from './quick-start-card';
import { RevokeApiKeyDialog } from './revoke-api-key-dialog';
import { RollApiKeyDialog } from './roll-api-key-dialog';
import { SecretReveal } from './secret-reveal';

export const NOT_ALLOWED_TEXT = 'Only owners and admins of this workspace can see and manage its API keys.';
export const NO_KEYS_TEXT = 'No API keys yet. Create one to call the API from your own programs.';

type Open =
  { kind: 'create' } | { kind: 'roll'; key: ApiKey } | { kind: 'revoke'; key: ApiKey } | { kind: 'secret'; issued: IssuedSecret } | null;

/** /workspace/developers (docs/adr/0031-api-keys.md): the workspace's API keys and a quick start for the API. */
export function DevelopersPage() {
  useDocumentTitle('Developers');
  const { scopes, canManage, keys, loading, error } = useDevelopers();
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);

  return (
    <PageContainer className="py-8 sm:py-10">
      <ButtonLink to="/dashboard" variant="secondary" size="sm">
        <span aria-hidden="true">←</span> Back to Dashboard
      </ButtonLink>

      <div className="mt-6 mb-8">
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">Developers</h1>
        <p className="mt-1 text-sm text-gray-600">
          API keys let your own programs, such as a CI job or a support tool, use this workspace through the Parley API.
        </p>
      </div>

      <div className="grid gap-6 lg:grid-cols-3">
        <Card className="min-w-0 lg:col-span-2">
          <CardHeader
            title="API keys"
            description="Each key acts for the whole workspace, within its scopes."
            action={
              canManage ? (
                <Button size="sm" onClick={() => setOpen({ kind: 'create' })}>
                  Create key
                </Button>
              ) : null
            }
          />
          <CardBody>
            {loading ? (
              <div className="flex justify-center py-6 text-brand-600">
                <Spinner className="size-6" label="Loading API keys" />
              </div>
            ) : error ? (
              <Alert>{error}</Alert>
            ) : !canManage ? (
              <Alert tone="info">{NOT_ALLOWED_TEXT}</Alert>
            ) : keys && keys.length > 0 ? (
              <ApiKeysList
                keys={keys}
                onRoll={(key) => setOpen({ kind: 'roll', key })}
                onRevoke={(key) => setOpen({ kind: 'revoke', key })}
              />
            ) : (
              <p className="py-4 text-center text-sm text-gray-600">{NO_KEYS_TEXT}</p>
            )}
          </CardBody>
        </Card>
        <QuickStartCard />
        {canManage && !loading ? <ProviderKeysCard /> : null}
      </div>

      {open?.kind === 'create' ? (
        <CreateApiKeyDialog scopes={scopes} onCancel={close} onCreated={(issued) => setOpen({ kind: 'secret', issued })} />
      ) : null}
      {open?.kind === 'roll' ? (
        <RollApiKeyDialog apiKey={open.key} onCancel={close} onRolled={(issued) => setOpen({ kind: 'secret', issued })} />
      ) : null}
      {open?.kind === 'revoke' ? <RevokeApiKeyDialog apiKey={open.key} onCancel={close} onRevoked={close} /> : null}
      {open?.kind === 'secret' ? <SecretReveal issued={open.issued} onDone={close} /> : null}
    </PageContainer>
  );
}
