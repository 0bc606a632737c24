// Single sign-on at the gateway (docs/adr/0047-single-sign-on.md): the browser's trips to and from a
// workspace's identity provider, its SAML metadata, and the Security page's settings. Auth does the
// checking and opens the session; the gateway hands the session to the web app in the URL fragment of
// /login/sso (never sent to a server, so no log or Referer carries it). Each trip is bound to the browser
// that started it by the SSO cookie (browser-binding.ts, docs/adr/0066-sso-bound-to-the-browser.md).
import express, { Router, type Request, type Response } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import { mapError } from '../../http/errors.ts';
import { escapeHtml, h1, page } from '../../http/html-page.ts';
import { actor } from '../workspaces/workspaces.ts';
import { routeMember } from '../../access/members.ts';
import { booleanField, jsonObject, stringField } from '../../http/input.ts';
import { Plan } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Seats } from '../workspaces/workspaces.ts';
import { bindBrowser, browserBindingOf } from './browser-binding.ts';

/** The SAML POST binding's form: a base64 response, bounded. */
const SAML_FORM_LIMIT = '1mb';
const MAX_QUERY_FIELD = 320;

const queryString = (req: Request, name: string): string => {
  const v = req.query[name];
  return typeof v === 'string' ? v.slice(0, MAX_QUERY_FIELD) : '';
};

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

export function ssoRoutes(clients: Clients, opts: { logger: Logger; publicUrl: string; seats: Seats }): Router {
  const router = Router();
  const { logger } = opts;

  // "Sign in with SSO": JSON for the web app (which shows a refusal in the form), a redirect otherwise.
  router.get('/start', async (req, res) => {
    const email = queryString(req, 'email');
    const workspaceId = queryString(req, 'workspace');
    try {
      if (!email && !workspaceId) throw new ConnectError('Please enter your work email', Code.InvalidArgument);
      const browserBinding = bindBrowser(req, res, opts.publicUrl);
      const { redirectUrl } = await clients.sso.startSsoSignIn({ email, workspaceId, browserBinding });
      if (req.accepts(['html', 'json']) === 'json') res.json({ redirectUrl });
      else res.redirect(303, redirectUrl);
    } catch (err) {
      if (req.accepts(['html', 'json']) === 'json') throw err;
      refusedPage(res, err, logger);
    }
  });

  type Answer = { protocol: 'oidc' | 'saml'; oidcQuery?: string; samlResponse?: string; relayState?: string; clientIp: string };
  const finish = async (req: Request, res: Response, request: Answer) => {
    try {
      const browserBinding = browserBindingOf(req);
      const seats = await seatsFor(clients, opts.seats, request);
      const r = await clients.sso.completeSsoSignIn({ ...request, browserBinding, ...seats });
      if (r.test) {
        res.redirect(303, `/workspace/security?${new URLSearchParams({ test: 'passed', email: r.email })}`);
        return;
      }
      res.redirect(303, `/login/sso#${new URLSearchParams({ token: r.token, workspace: r.workspaceId })}`);
    } catch (err) {
      refusedPage(res, err, logger);
    }
  };

  router.get('/oidc/callback', async (req, res) => {
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    await finish(req, res, { protocol: 'oidc', oidcQuery: query.slice(0, 8192), clientIp: clientIp(req) });
  });

  router.post('/saml/acs', express.urlencoded({ extended: false, limit: SAML_FORM_LIMIT }), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const samlResponse = typeof body.SAMLResponse === 'string' ? body.SAMLResponse : '';
    const relayState = typeof body.RelayState === 'string' ? body.RelayState : '';
    if (!samlResponse) {
      refusedPage(res, new ConnectError('The identity provider sent no SAML response.', Code.InvalidArgument), logger);
      return;
    }
    await finish(req, res, { protocol: 'saml', samlResponse, relayState, clientIp: clientIp(req) });
  });

  router.get('/saml/metadata/:workspace', async (req, res) => {
    const { xml } = await clients.sso.getSamlMetadata({ workspaceId: String(req.params.workspace) });
    res.type('application/samlmetadata+xml').send(xml);
  });

  return router;
}

/** The Security page's settings: GET and PUT /api/workspace/security, and its Test sign-in (members:manage). */
export function securityRoutes(clients: Clients, opts: { publicUrl: string }): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const m = await routeMember(clients, req);
    const { settings } = await clients.sso.getSsoSettings({ actor: actor(m) });
    res.json(settings);
  });

  router.put('/', async (req, res) => {
    const m = await routeMember(clients, req);
    const body = jsonObject(req.body);
    const domains = body.claimedDomains;
    if (!Array.isArray(domains) || !domains.every((d) => typeof d === 'string')) {
      throw new ConnectError('claimedDomains must be a list of domains', Code.InvalidArgument);
    }
    const { settings } = await clients.sso.saveSsoSettings({
      actor: actor(m),
      protocol: stringField(body, 'protocol'),
      oidcIssuer: stringField(body, 'oidcIssuer'),
      oidcClientId: stringField(body, 'oidcClientId'),
      oidcClientSecret: stringField(body, 'oidcClientSecret'),
      samlEntryPoint: stringField(body, 'samlEntryPoint'),
      samlIdpIssuer: stringField(body, 'samlIdpIssuer'),
      samlIdpCertificate: stringField(body, 'samlIdpCertificate'),
      samlIdpMetadataXml: stringField(body, 'samlIdpMetadataXml'),
      claimedDomains: domains as string[],
      defaultRole: stringField(body, 'defaultRole'),
      autoCreate: booleanField(body, 'autoCreate'),
      requireSso: booleanField(body, 'requireSso'),
    });
    res.json(settings);
  });

  router.post('/test-sign-in', async (req, res) => {
    const m = await routeMember(clients, req);
    const browserBinding = bindBrowser(req, res, opts.publicUrl);
    const { redirectUrl } = await clients.sso.startSsoSignIn({ testBy: actor(m), browserBinding });
    res.json({ redirectUrl });
  });

  return router;
}
