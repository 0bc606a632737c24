import { Link } from 'react-router-dom';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { API_BASE_PATH, API_REFERENCE_PATH, curlExample } from '../api-keys';
import { CopyButton } from './copy-button';

/** The first call with a key, on this deployment's own origin, and the way to the full reference. */
export function QuickStartCard() {
  const example = curlExample(window.location.origin);
  return (
    <Card className="min-w-0">
      <CardHeader
        title="Quick start"
        description={`The API lives at ${window.location.origin}${API_BASE_PATH}. Send the key as a Bearer token.`}
      />
      <CardBody className="space-y-3">
        <pre
          className="rounded-lg bg-gray-900 p-3 text-xs leading-relaxed break-all whitespace-pre-wrap text-gray-100"
          aria-label="Example request"
        >
          <code>{example}</code>
        </pre>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CopyButton text={example} label="Copy example" />
          <Link to={API_REFERENCE_PATH} className="text-sm font-medium text-brand-700 hover:text-brand-800 hover:underline">
            Read the API reference →
          </Link>
        </div>
      </CardBody>
    </Card>
  );
}
