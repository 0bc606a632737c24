// What every public path shares (the public chat's own, features/public-chat/rest.ts, and the lead
// form, features/leads/rest.ts): where a call came from (ADR 19) and what the host page told the
// widget about its visitor.
import type { Request } from 'express';
import { invalid } from '@parley/common/rpc-errors.ts';
import { CONTROL_CHARACTERS, isCleanText, type JsonObject } from '../../http/input.ts';

/** The header the embed page sends on its API calls. */
export const EMBED_HEADER = 'X-Parley-Embed';

/**
 * The site of an Origin that names none (a sandboxed frame, a file, a data: URL: the browser sends
 * "null") or cannot be read, or that is not a web page's (http/https). It is from another site, so it
 * is served where the chatbot runs anywhere; and as it can never be a host name (a space and
 * parentheses), no allowed-domains list matches it, so a chatbot kept to its domains refuses it.
 */
export const UNKNOWN_SITE = '(unknown site)';

/**
 * Where a public call came from (the product's rule, common to every public path): "" for no Origin
 * and for Parley's own origins (the public URL's, or the request's own); else the Origin's host name
 * in lower case, without its port (allowed domains are host names: a site's ports are one site).
 */
export function siteHost(origin: string | undefined, ownOrigins: readonly string[]): string {
  if (origin === undefined || origin === '') return '';
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return UNKNOWN_SITE;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return UNKNOWN_SITE;
  // URL lower-cases the host and drops a default port, so the comparison is of origins, not spellings.
  if (ownOrigins.some((own) => originOf(own) === url.origin)) return '';
  return url.hostname;
}

function originOf(address: string): string | undefined {
  try {
    return new URL(address).origin;
  } catch {
    return undefined;
  }
}

/** The request's site and whether it came from the embed page, as the chat service's calls take them. */
export function requestSite(req: Request, publicUrl: string): { siteHost: string; embedded: boolean } {
  return {
    siteHost: siteHost(req.get('origin'), [publicUrl, `${req.protocol}://${req.get('host') ?? ''}`]),
    embedded: req.get(EMBED_HEADER) === '1',
  };
}

export interface Visitor {
  id: string;
  name: string;
  email: string;
  userHash: string;
}

/**
 * What the host page told the widget about its visitor (Parley.identify): the body's `visitor: { id?,
 * name?, email?, userHash? }`, each "" when not told. Lengths are the chat service's rule, and so is
 * the userHash's check (a wrong one leaves the visitor unverified); only JSON types are checked here.
 * A reader for readWith (http/operations.ts): every field's type first, then each one's text.
 */
export function visitorOf(value: unknown): Visitor {
  if (value === undefined || value === null) return { id: '', name: '', email: '', userHash: '' };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('visitor must be an object');
  const visitor = value as JsonObject;
  for (const key of VISITOR_FIELDS) {
    const field = visitor[key];
    if (field !== undefined && field !== null && typeof field !== 'string') throw invalid(`visitor.${key} must be a string`);
  }
  const text = (key: (typeof VISITOR_FIELDS)[number]): string => {
    const field = (visitor[key] ?? '') as string;
    if (!isCleanText(field)) throw invalid(CONTROL_CHARACTERS);
    return field;
  };
  return { id: text('id'), name: text('name'), email: text('email'), userHash: text('userHash') };
}

const VISITOR_FIELDS = ['id', 'name', 'email', 'userHash'] as const;
