import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { ButtonLink } from '../../../components/ui/button-link';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { API_BASE_PATH } from '../api-keys';

export const OPENAPI_PATH = `${API_BASE_PATH}/openapi.json`;
export const REFERENCE_MISSING_TEXT = 'The API reference is not available right now. Please try again later.';
export const LOADING_REFERENCE_TEXT = 'Loading the API reference…';

const ApiReferenceView = lazy(() => import('./api-reference-view'));

type Loaded = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; document: object };

/** /developers/api: the developer API's OpenAPI document, rendered; open to everyone, like the document. */
export function ApiReferencePage() {
  useDocumentTitle('API reference');
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });

  const load = useCallback(async () => {
    setLoaded({ state: 'loading' });
    try {
      const res = await fetch(OPENAPI_PATH, { headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`OpenAPI document answered ${res.status}`);
      const document = (await res.json()) as unknown;
      if (!document || typeof document !== 'object' || !('openapi' in document)) throw new Error('not an OpenAPI document');
      setLoaded({ state: 'ready', document });
    } catch (error) {
      console.error('Failed to load the OpenAPI document', error);
      setLoaded({ state: 'failed' });
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const spinner = (
    <div className="flex flex-col items-center gap-3 py-16 text-brand-600">
      <Spinner className="size-6" label={LOADING_REFERENCE_TEXT} />
      <p className="text-sm text-gray-600">{LOADING_REFERENCE_TEXT}</p>
    </div>
  );

  return (
    <div className="py-8 sm:py-10">
      <PageContainer>
        <ButtonLink to="/workspace/developers" variant="secondary" size="sm">
          <span aria-hidden="true">←</span> API keys
        </ButtonLink>
        <h1 className="mt-6 text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">API reference</h1>
        <p className="mt-1 mb-6 text-sm text-gray-600">
          Every call of the Parley API at <span className="font-mono">{API_BASE_PATH}</span>, with its scope, parameters and answers.
        </p>
        {loaded.state === 'failed' ? (
          <Alert className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
            <span>{REFERENCE_MISSING_TEXT}</span>
            <Button variant="secondary" size="sm" onClick={() => void load()}>
              Try again
            </Button>
          </Alert>
        ) : null}
        {loaded.state === 'loading' ? spinner : null}
      </PageContainer>
      {loaded.state === 'ready' ? (
        <div className="mx-auto w-full max-w-6xl sm:px-6 lg:px-8">
          <Suspense fallback={spinner}>
            <ApiReferenceView document={loaded.document} />
          </Suspense>
        </div>
      ) : null}
    </div>
  );
}
