// The libraries of single sign-on, loaded with the first sign-in or metadata request that needs
// them, not when auth starts: openid-client (with undici, through guarded-fetch.ts) and
// @node-saml/node-saml (with its XML signature and encryption stack), ≈ 250 modules and ≈ 2.5 MB of
// sources that most processes never use (docs/adr/0068-memory-at-rest.md).
import type * as Oidc from './oidc.ts';
import type * as Saml from './saml.ts';

let oidc: Promise<typeof Oidc> | undefined;
let saml: Promise<typeof Saml> | undefined;

export const oidcProtocol = () => (oidc ??= import('./oidc.ts'));
export const samlProtocol = () => (saml ??= import('./saml.ts'));
