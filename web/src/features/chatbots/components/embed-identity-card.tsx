import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { useIdentityVerification } from '../hooks/use-identity-verification';

/** What the owner's server runs for its signed-in user (Node.js): the hash Parley.identify carries. */
export const IDENTITY_SERVER_SAMPLE = `// On your server, for the signed-in user (Node.js):
import { createHmac } from 'node:crypto';
const userHash = createHmac('sha256', process.env.PARLEY_IDENTITY_SECRET).update(user.id).digest('hex');

// In the page, with the widget:
Parley.identify({ userId: user.id, email: user.email, name: user.name, userHash });`;

const dateOf = (iso: string) => new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });

/**
 * The Embed tab's Identity verification card: make (or roll) the chatbot's identity secret, shown
 * once, and the code the owner's server runs with it. A visitor identified with a matching hash is
 * verified; History and the inbox mark their conversations "Verified".
 */
export function EmbedIdentityCard({ chatbotId }: { chatbotId: string }) {
  const { status, loading, creating, secret, error, create } = useIdentityVerification(chatbotId);
  const enabled = status?.enabled === true;

  return (
    <Card>
      <CardHeader
        title="Identity verification"
        description="Prove who a signed-in visitor is: your server signs their user id with this chatbot's secret, and their conversations are marked Verified."
        action={loading ? null : enabled ? <Badge tone="success">On since {dateOf(status!.createdAt!)}</Badge> : <Badge>Off</Badge>}
      />
      <CardBody className="space-y-4">
        {secret ? (
          <div className="space-y-2">
            <p className="text-sm font-medium text-gray-900">Your identity secret (shown only this once; keep it on your server):</p>
            <code aria-label="Identity secret" className="block rounded-lg bg-gray-100 px-3 py-2 text-[13px] break-all text-gray-900">
              {secret}
            </code>
          </div>
        ) : null}
        {error ? <Alert>{error}</Alert> : null}
        {/* Focusable: a keyboard can scroll a sample wider than the card. */}
        <pre
          tabIndex={0}
          className="overflow-x-auto rounded-xl bg-gray-900 px-4 py-3.5 text-[13px] leading-6 text-gray-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
        >
          <code aria-label="Identity code sample">{IDENTITY_SERVER_SAMPLE}</code>
        </pre>
        <div className="flex items-center gap-3">
          <Button type="button" variant={enabled ? 'secondary' : 'primary'} disabled={creating || loading} onClick={() => void create()}>
            {enabled ? 'Roll secret' : 'Create secret'}
          </Button>
          {enabled ? (
            <p className="text-sm text-gray-600">Rolling makes a new secret: hashes made with the old one stop verifying at once.</p>
          ) : null}
        </div>
      </CardBody>
    </Card>
  );
}
