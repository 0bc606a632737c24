import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { SelectField } from '../../../components/ui/select-field';
import { Spinner } from '../../../components/ui/spinner';
import { Switch } from '../../../components/ui/switch';
import { TextField } from '../../../components/ui/text-field';
import { TextareaField } from '../../../components/ui/textarea-field';
import { hasPermission } from '../../../lib/workspace/roles';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import type { SsoSettings } from '../api/security-api';
import { useSecuritySettings } from '../hooks/use-security-settings';

export const NO_PERMISSION_MESSAGE = 'Only an admin or above in this workspace can manage its security settings.';

const PROTOCOLS = [
  { value: '', label: 'None' },
  { value: 'oidc', label: 'OpenID Connect' },
  { value: 'saml', label: 'SAML 2.0' },
];
const ROLES = ['admin', 'editor', 'agent', 'viewer'].map((r) => ({ value: r, label: r[0].toUpperCase() + r.slice(1) }));

/** /workspace/security: the workspace's single sign-on (owners and admins). */
export function SecurityPage() {
  useDocumentTitle('Security');
  const workspace = useWorkspace();
  const canManage = hasPermission(workspace.current, 'members:manage');
  return (
    <PageContainer className="py-8 sm:py-10">
      <div className="mb-8">
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">Security</h1>
        <p className="mt-1 text-sm text-gray-600">Single sign-on through your identity provider.</p>
      </div>
      {canManage ? <SsoSettingsForm /> : <Alert>{NO_PERMISSION_MESSAGE}</Alert>}
    </PageContainer>
  );
}

function SsoSettingsForm() {
  const { settings, loadError, save, saving, error, saved, testSignIn, testing } = useSecuritySettings();
  const [params] = useSearchParams();
  if (loadError) return <Alert>{loadError}</Alert>;
  if (!settings) return <Spinner label="Loading security settings" />;
  const tested = params.get('test') === 'passed' ? `Test sign-in succeeded as ${params.get('email') ?? ''}.` : null;
  return (
    <div className="space-y-6">
      {tested ? <Alert tone="success">{tested}</Alert> : null}
      <Form key={JSON.stringify(settings)} settings={settings} onSave={save} saving={saving} error={error} saved={saved} />
      <Card>
        <CardHeader
          title="Test sign-in"
          description="Sign in through the identity provider without opening a session, to check the set-up."
        />
        <CardBody>
          <Button
            type="button"
            variant="secondary"
            onClick={() => void testSignIn()}
            busy={testing}
            busyLabel="Redirecting..."
            disabled={!settings.protocol}
          >
            Test sign-in
          </Button>
        </CardBody>
      </Card>
    </div>
  );
}

function Form({
  settings,
  onSave,
  saving,
  error,
  saved,
}: {
  settings: SsoSettings;
  onSave: ReturnType<typeof useSecuritySettings>['save'];
  saving: boolean;
  error: string | null;
  saved: string | null;
}) {
  const [protocol, setProtocol] = useState<string>(settings.protocol);
  const [oidcIssuer, setOidcIssuer] = useState(settings.oidcIssuer);
  const [oidcClientId, setOidcClientId] = useState(settings.oidcClientId);
  const [oidcClientSecret, setOidcClientSecret] = useState('');
  const [samlIdpMetadataXml, setSamlIdpMetadataXml] = useState('');
  const [samlEntryPoint, setSamlEntryPoint] = useState(settings.samlEntryPoint);
  const [samlIdpIssuer, setSamlIdpIssuer] = useState(settings.samlIdpIssuer);
  const [samlIdpCertificate, setSamlIdpCertificate] = useState(settings.samlIdpCertificate);
  const [domains, setDomains] = useState(settings.claimedDomains.join(', '));
  const [defaultRole, setDefaultRole] = useState(settings.defaultRole);
  const [autoCreate, setAutoCreate] = useState(settings.autoCreate);
  const [requireSso, setRequireSso] = useState(settings.requireSso);
  useEffect(() => setOidcClientSecret(''), [settings]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void onSave({
      protocol,
      oidcIssuer,
      oidcClientId,
      oidcClientSecret,
      samlEntryPoint,
      samlIdpIssuer,
      samlIdpCertificate,
      samlIdpMetadataXml,
      claimedDomains: domains
        .split(/[\s,]+/)
        .map((d) => d.trim())
        .filter(Boolean),
      defaultRole,
      autoCreate,
      requireSso,
    });
  }

  return (
    <form onSubmit={submit}>
      <Card>
        <CardHeader
          title="Single sign-on"
          description="Members whose email is in a claimed domain sign in through your identity provider."
        />
        <CardBody className="space-y-5">
          {error ? <Alert>{error}</Alert> : null}
          {saved ? <Alert tone="success">{saved}</Alert> : null}
          <SelectField
            label="Identity provider"
            name="protocol"
            options={PROTOCOLS}
            value={protocol}
            onChange={(e) => setProtocol(e.target.value)}
          />
          {protocol === 'oidc' ? (
            <>
              <p className="text-sm text-gray-600">
                Redirect URI to register: <code className="break-all">{settings.oidcRedirectUri}</code>
              </p>
              <TextField
                label="Issuer URL"
                name="oidcIssuer"
                placeholder="https://login.example.com"
                value={oidcIssuer}
                onChange={(e) => setOidcIssuer(e.target.value)}
              />
              <TextField label="Client ID" name="oidcClientId" value={oidcClientId} onChange={(e) => setOidcClientId(e.target.value)} />
              <TextField
                label="Client secret"
                name="oidcClientSecret"
                type="password"
                autoComplete="off"
                placeholder={settings.oidcClientSecretSet ? 'Stored — leave empty to keep it' : ''}
                value={oidcClientSecret}
                onChange={(e) => setOidcClientSecret(e.target.value)}
              />
            </>
          ) : null}
          {protocol === 'saml' ? (
            <>
              <p className="text-sm text-gray-600">
                ACS URL: <code className="break-all">{settings.samlAcsUrl}</code>
                <br />
                Entity ID and metadata: <code className="break-all">{settings.samlEntityId}</code>
              </p>
              <TextareaField
                label="Identity provider metadata XML"
                name="samlIdpMetadataXml"
                hint="Paste it, or enter the single sign-on URL and certificate below."
                rows={4}
                value={samlIdpMetadataXml}
                onChange={(e) => setSamlIdpMetadataXml(e.target.value)}
              />
              <TextField
                label="Single sign-on URL"
                name="samlEntryPoint"
                value={samlEntryPoint}
                onChange={(e) => setSamlEntryPoint(e.target.value)}
              />
              <TextField
                label="Identity provider entity ID"
                name="samlIdpIssuer"
                value={samlIdpIssuer}
                onChange={(e) => setSamlIdpIssuer(e.target.value)}
              />
              <TextareaField
                label="Signing certificate (PEM)"
                name="samlIdpCertificate"
                rows={4}
                value={samlIdpCertificate}
                onChange={(e) => setSamlIdpCertificate(e.target.value)}
              />
            </>
          ) : null}
          <TextField
            label="Claimed domains"
            name="claimedDomains"
            placeholder="example.com"
            hint="Comma-separated. Only an owner whose own email is in a domain can claim it."
            value={domains}
            onChange={(e) => setDomains(e.target.value)}
          />
          <SelectField
            label="Default role"
            name="defaultRole"
            options={ROLES}
            value={defaultRole}
            onChange={(e) => setDefaultRole(e.target.value)}
          />
          <Switch
            label="Create accounts on first sign-in"
            description="People in the claimed domains join at the default role the first time they sign in."
            checked={autoCreate}
            onChange={setAutoCreate}
          />
          <Switch
            label="Require single sign-on"
            description="Members in the claimed domains cannot sign in with a password; owners still can, with two-factor sign-in."
            checked={requireSso}
            onChange={setRequireSso}
          />
          <Button type="submit" busy={saving} busyLabel="Saving...">
            Save
          </Button>
        </CardBody>
      </Card>
    </form>
  );
}
