// Single sign-on at the gateway (docs/adr/0047-single-sign-on.md): the browser's trips to and from a
// workspace's identity provider, its SAML metadata, and the Security page's settings. Auth does the
// checking and opens the session; the gateway hands the session to the web app in the URL fragment of
// /login/sso (never sent to a server, so no log or Referer carries it). Each trip is bound to the browser
// that started it by the SSO cookie (browser-binding.ts, docs/adr/0066-sso-bound-to-the-browser.md).
// Each path is a row of this operation table (http/operations.ts); the trips answer with redirects and
// pages themselves:
//   GET  /api/auth/sso/start?email|workspace         → a redirect to the provider (JSON { redirectUrl } when asked)
//   GET  /api/auth/sso/oidc/callback                 → a redirect to /login/sso, or a page saying why not
//   POST /api/auth/sso/saml/acs (the provider's form) → the same
//   GET  /api/auth/sso/saml/metadata/{workspace}     → the service provider's SAML metadata
//   GET  /api/workspace/security                     → the settings (members:manage)
//   PUT  /api/workspace/security { protocol, …, claimedDomains, defaultRole, autoCreate, requireSso } → the settings
//   POST /api/workspace/security/test-sign-in        → { redirectUrl } (a test sign-in by the member)
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { mapError } from '../../http/errors.ts';
import { escapeHtml, h1, page } from '../../http/html-page.ts';
import { actor } from '../workspaces/workspaces.ts';
import { operation, readBodyWith, type Operation } from '../../http/operations.ts';
import { flag, jsonBody, text } from '../../http/input.ts';
import { Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Seats } from '../workspaces/workspaces.ts';
import { bindBrowser, browserBindingOf } from './browser-binding.ts';

/** The SAML POST binding's form: a base64 response, bounded. */
const SAML_FORM_LIMIT = '1mb';
const MAX_QUERY_FIELD = 320;

const samlForm = express.urlencoded({ extended: false, limit: SAML_FORM_LIMIT });

/** A field of a trip's query or form: its text (up to `max` characters), '' for anything else; never refused here, a refusal is a page. */
const tripField = (max = Infinity) =>
  z
    .unknown()
    .optional()
    .transform((value) => (typeof value === 'string' ? value.slice(0, max) : ''));
const startQuery = z.object({ email: tripField(MAX_QUERY_FIELD), workspace: tripField(MAX_QUERY_FIELD) });
const samlAnswer = z.preprocess((value) => value ?? {}, z.object({ SAMLResponse: tripField(), RelayState: tripField() }));

const CLAIMED_DOMAINS = 'claimedDomains must be a list of domains';
/** The Security page's settings; the domains first, as their check came first. */
const securitySettings = jsonBody({
  claimedDomains: z.array(z.string({ error: CLAIMED_DOMAINS }), { error: CLAIMED_DOMAINS }),
  protocol: text('protocol'),
  oidcIssuer: text('oidcIssuer'),
  oidcClientId: text('oidcClientId'),
  oidcClientSecret: text('oidcClientSecret'),
  samlEntryPoint: text('samlEntryPoint'),
  samlIdpIssuer: text('samlIdpIssuer'),
  samlIdpCertificate: text('samlIdpCertificate'),
  samlIdpMetadataXml: text('samlIdpMetadataXml'),
  defaultRole: text('defaultRole'),
  autoCreate: flag('autoCreate'),
  requireSso: flag('requireSso'),
});

/** A refused sign-in as a page for the person in the browser, with the status the refusal stands for. */
function refusedPage(res: Response, err: unknown, logger: Logger): void {
  const { status, message } = mapError(err, logger);
  page(
    res,
    status,
    'Single sign-on failed',
    `<h1 style="${h1}">Single sign-on failed</h1><p>${escapeHtml(message)}</p><p><a href="/login">Back to sign-in</a></p>`,
  );
}

/** The plan and seat limit of the workspace a sign-in in flight is for (0 when there is no such sign-in). */
async function seatsFor(
  clients: Clients,
  seats: Seats,
  request: { protocol: string; oidcQuery?: string; relayState?: string },
): Promise<{ seatLimit: number; plan: string }> {
  const { workspaceId } = await clients.sso.getSsoSignInWorkspace(request);
  if (!workspaceId) return { seatLimit: 0, plan: '' };
  const { account } = await clients.billing.getAccount({ ownerId: workspaceId });
  const plan = account?.plan === Plan.PRO ? 'pro' : 'free';
  return { seatLimit: seats[plan], plan };
}

type Answer = { protocol: 'oidc' | 'saml'; oidcQuery?: string; samlResponse?: string; relayState?: string; clientIp: string };

/** The provider's answer handed to auth: a redirect to the session (or the test's result), or a page saying why not. */
async function finish(clients: Clients, deps: { logger: Logger; seats: Seats }, req: Request, res: Response, request: Answer) {
  try {
    const browserBinding = browserBindingOf(req);
    const seats = await seatsFor(clients, deps.seats, request);
    const r = await clients.sso.completeSsoSignIn({ ...request, browserBinding, ...seats });
    if (r.test) {
      res.redirect(303, `/workspace/security?${new URLSearchParams({ test: 'passed', email: r.email })}`);
      return;
    }
    res.redirect(303, `/login/sso#${new URLSearchParams({ token: r.token, workspace: r.workspaceId })}`);
  } catch (err) {
    refusedPage(res, err, deps.logger);
  }
}

const who = 'public';
const security = '/api/workspace/security';

export const ssoOperations: Operation[] = [
  // "Sign in with SSO": JSON for the web app (which shows a refusal in the form), a redirect otherwise.
  operation(
    { method: 'GET', path: '/api/auth/sso/start', who, query: startQuery },
    async ({ app: { clients, logger, publicUrl }, req, res, query }) => {
      const json = req.accepts(['html', 'json']) === 'json';
      try {
        if (!query.email && !query.workspace) throw new ConnectError('Please enter your work email', Code.InvalidArgument);
        const browserBinding = bindBrowser(req, res, publicUrl);
        const { redirectUrl } = await clients.sso.startSsoSignIn({ email: query.email, workspaceId: query.workspace, browserBinding });
        if (json) return { redirectUrl };
        res.redirect(303, redirectUrl);
      } catch (err) {
        if (json) throw err;
        refusedPage(res, err, logger);
      }
    },
  ),
  operation({ method: 'GET', path: '/api/auth/sso/oidc/callback', who }, async ({ app, req, res }) => {
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    await finish(app.clients, app, req, res, { protocol: 'oidc', oidcQuery: query.slice(0, 8192), clientIp: clientIp(req) });
  }),
  // The provider's form, posted cross-site: read here, as a form, and never as JSON.
  operation({ method: 'POST', path: '/api/auth/sso/saml/acs', who, readsOwnBody: true }, async ({ app, req, res }) => {
    await readBodyWith(samlForm, req, res);
    const { SAMLResponse: samlResponse, RelayState: relayState } = samlAnswer.parse(req.body);
    if (!samlResponse) {
      refusedPage(res, new ConnectError('The identity provider sent no SAML response.', Code.InvalidArgument), app.logger);
      return;
    }
    await finish(app.clients, app, req, res, { protocol: 'saml', samlResponse, relayState, clientIp: clientIp(req) });
  }),
  operation({ method: 'GET', path: '/api/auth/sso/saml/metadata/:workspace', who }, async ({ app: { clients }, params, res }) => {
    const { xml } = await clients.sso.getSamlMetadata({ workspaceId: params.workspace });
    res.type('application/samlmetadata+xml').send(xml);
  }),

  // The Security page's settings and its Test sign-in, in the request's workspace.
  operation({ method: 'GET', path: security, who: 'session', permission: 'members:manage' }, async ({ app: { clients }, member }) => {
    const { settings } = await clients.sso.getSsoSettings({ actor: actor(member) });
    return settings;
  }),
  operation(
    { method: 'PUT', path: security, who: 'session', permission: 'members:manage', body: securitySettings },
    async ({ app: { clients }, member, body }) => {
      const { settings } = await clients.sso.saveSsoSettings({ actor: actor(member), ...body });
      return settings;
    },
  ),
  operation(
    { method: 'POST', path: `${security}/test-sign-in`, who: 'session', permission: 'members:manage' },
    async ({ app: { clients, publicUrl }, member, req, res }) => {
      const browserBinding = bindBrowser(req, res, publicUrl);
      const { redirectUrl } = await clients.sso.startSsoSignIn({ testBy: actor(member), browserBinding });
      return { redirectUrl };
    },
  ),
];
