// The Security page's single sign-on settings of a workspace (members:manage, audited). The client
// secret is sealed (services/common/src/sealed-secret.ts) and never answered; new domain claims need
// an owner whose own email is in the domain (claimed-domains.ts).
import { alreadyExists, failedPrecondition, forbidden, invalid } from '@parley/common/rpc-errors.ts';
import { isRole, type Role } from '@parley/common/roles.ts';
import { seal } from '@parley/common/sealed-secret.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { changeAsMember, findMember, type ActorInput } from '../workspaces/access.ts';
import { memberAudit, recordAudit } from '../workspaces/audit.ts';
import { domainOf } from '../core/email.ts';
import { CLAIM_NEEDS_OWNER_IN_DOMAIN, DOMAIN_CLAIMED_ELSEWHERE, parseClaimedDomains } from './claimed-domains.ts';
import { parseCertificate, readIdpMetadata } from './idp-metadata.ts';
import { ssoUrls, type SsoDeps } from './sso-deps.ts';

export type SsoProtocol = 'oidc' | 'saml';

export interface SsoSettingsView {
  protocol: SsoProtocol | '';
  oidcIssuer: string;
  oidcClientId: string;
  oidcClientSecretSet: boolean;
  samlEntryPoint: string;
  samlIdpIssuer: string;
  samlIdpCertificate: string;
  claimedDomains: string[];
  defaultRole: Role;
  autoCreate: boolean;
  requireSso: boolean;
  oidcRedirectUri: string;
  samlAcsUrl: string;
  samlEntityId: string;
}

export interface SaveSsoSettingsInput {
  actor: ActorInput;
  protocol: string;
  oidcIssuer: string;
  oidcClientId: string;
  oidcClientSecret: string;
  samlEntryPoint: string;
  samlIdpIssuer: string;
  samlIdpCertificate: string;
  samlIdpMetadataXml: string;
  claimedDomains: string[];
  defaultRole: string;
  autoCreate: boolean;
  requireSso: boolean;
}

const MAX_FIELD = 2048;
export const REQUIRE_SSO_NEEDS_SET_UP = 'Set up an identity provider and claim a domain before requiring single sign-on.';

/** The AAD of a workspace's sealed client secret. */
export const clientSecretAad = (workspaceId: string) => `sso-client-secret:${workspaceId}`;

async function view(db: Prisma.TransactionClient | PrismaClient, publicUrl: string, workspaceId: string): Promise<SsoSettingsView> {
  const [c, domains] = await Promise.all([
    db.ssoConnection.findUnique({ where: { workspaceId } }),
    db.claimedDomain.findMany({ where: { workspaceId }, orderBy: { domain: 'asc' }, select: { domain: true } }),
  ]);
  return {
    protocol: (c?.protocol as SsoProtocol | undefined) ?? '',
    oidcIssuer: c?.oidcIssuer ?? '',
    oidcClientId: c?.oidcClientId ?? '',
    oidcClientSecretSet: Boolean(c?.oidcClientSecret),
    samlEntryPoint: c?.samlEntryPoint ?? '',
    samlIdpIssuer: c?.samlIdpIssuer ?? '',
    samlIdpCertificate: c?.samlIdpCertificate ?? '',
    claimedDomains: domains.map((d) => d.domain),
    defaultRole: c && isRole(c.defaultRole) ? c.defaultRole : 'viewer',
    autoCreate: c?.autoCreate ?? false,
    requireSso: c?.requireSso ?? false,
    ...ssoUrls(publicUrl, workspaceId),
  };
}

export async function getSsoSettings(deps: Pick<SsoDeps, 'db' | 'publicUrl'>, req: { actor: ActorInput }): Promise<SsoSettingsView> {
  const member = await findMember(deps.db, req.actor, 'members:manage');
  return view(deps.db, deps.publicUrl, member.workspace.id);
}

function field(raw: string, label: string): string {
  const value = raw.trim();
  if (value.length > MAX_FIELD) throw invalid(`${label} must be at most ${MAX_FIELD} characters`);
  if (hasControlCharacters(value)) throw invalid(`${label} must not contain control characters`);
  return value;
}

function providerUrl(raw: string, label: string, allowHttp: boolean): string {
  const value = field(raw, label);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${label} must be a URL (https://…)`);
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) throw invalid(`${label} must be an https:// URL`);
  if (url.username || url.password) throw invalid(`${label} must not contain a user name or password`);
  return url.toString().replace(/\/$/, '');
}

export async function saveSsoSettings(deps: SsoDeps, req: SaveSsoSettingsInput): Promise<SsoSettingsView> {
  const protocol = req.protocol;
  if (protocol !== 'oidc' && protocol !== 'saml' && protocol !== '') throw invalid('Protocol must be "oidc", "saml" or empty');
  if (!isRole(req.defaultRole) || req.defaultRole === 'owner') throw invalid('The default role must be admin, editor, agent or viewer');
  const defaultRole = req.defaultRole;
  const domains = parseClaimedDomains(req.claimedDomains);
  const allowHttp = deps.ssoAllowPrivateAddresses;

  let oidc = { oidcIssuer: '', oidcClientId: '' };
  let saml = { samlEntryPoint: '', samlIdpIssuer: '', samlIdpCertificate: '' };
  if (protocol === 'oidc') {
    oidc = { oidcIssuer: providerUrl(req.oidcIssuer, 'Issuer URL', allowHttp), oidcClientId: field(req.oidcClientId, 'Client ID') };
    if (!oidc.oidcClientId) throw invalid('Please enter the client ID');
  } else if (protocol === 'saml') {
    if (req.samlIdpMetadataXml.trim()) {
      const m = readIdpMetadata(req.samlIdpMetadataXml);
      saml = {
        samlEntryPoint: providerUrl(m.entryPoint, 'Single sign-on URL', allowHttp),
        samlIdpIssuer: field(m.entityId, 'Issuer'),
        samlIdpCertificate: m.certificate,
      };
    } else {
      if (!req.samlEntryPoint.trim() || !req.samlIdpCertificate.trim()) {
        throw invalid('Please paste the identity provider metadata XML, or enter its single sign-on URL and certificate');
      }
      saml = {
        samlEntryPoint: providerUrl(req.samlEntryPoint, 'Single sign-on URL', allowHttp),
        samlIdpIssuer: field(req.samlIdpIssuer, 'Issuer'),
        samlIdpCertificate: parseCertificate(req.samlIdpCertificate),
      };
    }
  }
  if (req.requireSso && (!protocol || domains.length === 0)) throw failedPrecondition(REQUIRE_SSO_NEEDS_SET_UP);
  const secret = field(req.oidcClientSecret, 'Client secret');

  try {
    return await changeAsMember(deps.db, req.actor, 'members:manage', async (tx, member) => {
      const workspaceId = member.workspace.id;
      const before = await tx.ssoConnection.findUnique({ where: { workspaceId } });
      const held = (await tx.claimedDomain.findMany({ where: { workspaceId }, select: { domain: true } })).map((d) => d.domain);
      const added = domains.filter((d) => !held.includes(d));
      for (const d of added) {
        if (member.role !== 'owner' || domainOf(member.email) !== d) throw forbidden(CLAIM_NEEDS_OWNER_IN_DOMAIN(d));
      }
      const elsewhere = await tx.claimedDomain.findFirst({ where: { domain: { in: added } }, select: { domain: true } });
      if (elsewhere) throw alreadyExists(DOMAIN_CLAIMED_ELSEWHERE(elsewhere.domain));
      let oidcClientSecret = '';
      if (protocol === 'oidc') {
        oidcClientSecret = secret
          ? seal(deps.ssoKey, secret, clientSecretAad(workspaceId))
          : before?.protocol === 'oidc'
            ? before.oidcClientSecret
            : '';
        if (!oidcClientSecret) throw invalid('Please enter the client secret');
      }
      if (protocol) {
        const data = { protocol, ...oidc, oidcClientSecret, ...saml, defaultRole, autoCreate: req.autoCreate, requireSso: req.requireSso };
        await tx.ssoConnection.upsert({ where: { workspaceId }, create: { workspaceId, ...data }, update: data });
      } else {
        await tx.ssoConnection.deleteMany({ where: { workspaceId } });
      }
      await tx.claimedDomain.deleteMany({ where: { workspaceId, domain: { notIn: domains } } });
      if (added.length) await tx.claimedDomain.createMany({ data: added.map((domain) => ({ domain, workspaceId })) });
      await recordAudit(
        tx,
        memberAudit(member, 'workspace.sso_updated', member.workspace.name, {
          protocol,
          claimedDomains: domains,
          defaultRole,
          autoCreate: req.autoCreate,
          requireSso: req.requireSso,
          clientSecretChanged: Boolean(secret),
        }),
      );
      return view(tx, deps.publicUrl, workspaceId);
    });
  } catch (err) {
    // The primary key decides between two workspaces claiming one domain at the same moment.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      const taken = await deps.db.claimedDomain.findFirst({
        where: { domain: { in: domains } },
        select: { domain: true, workspaceId: true },
      });
      throw alreadyExists(DOMAIN_CLAIMED_ELSEWHERE(taken?.domain ?? 'This domain'));
    }
    throw err;
  }
}
