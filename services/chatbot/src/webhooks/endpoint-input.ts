// What an owner may give an endpoint: an https URL on the public internet (checked by the address
// one outbound guard, @parley/common/outbound/guard.ts, against every address its name resolves
// to; the delivery's own connection checks again) and event types of the catalogue.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { WEBHOOK_EVENT_TYPES, isWebhookEventType, type WebhookEventType } from '@parley/common/webhook-events.ts';
import { addressRefusal, EMPTY_ALLOW_LIST, type AllowList } from '@parley/common/outbound/guard.ts';
import { isUuid } from '@parley/common/ids.ts';

export const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';
export const DELIVERY_NOT_FOUND = 'Webhook delivery not found';
export const URL_INVALID = 'The endpoint URL must be a valid https:// address';
export const URL_TOO_LONG = 'The endpoint URL must be at most 2,000 characters';
export const ADDRESS_NOT_ALLOWED = 'This address is not allowed';
export const HOST_NOT_FOUND = 'The endpoint host could not be found';
export const EVENTS_REQUIRED = 'Choose at least one event';
export const unknownEvent = (type: string) => `Unknown event type: ${type.slice(0, 100)}`;
export const TOO_MANY_ENDPOINTS = (max: number) => `A workspace may have at most ${max} webhook endpoints`;

/** Endpoints per workspace. */
export const MAX_ENDPOINTS = 20;
const MAX_URL_CHARS = 2000;

/** An id that is not a UUID cannot name an endpoint: answered like an unknown one. */
export function parseEndpointId(raw: string): string {
  const id = raw.trim().toLowerCase();
  if (!isUuid(id)) throw notFound(ENDPOINT_NOT_FOUND);
  return id;
}

/** The types, each once, in the catalogue's order; refuses an empty list and unknown types. */
export function parseEventTypes(raw: readonly string[]): WebhookEventType[] {
  const wanted = new Set<string>();
  for (const type of raw) {
    const t = type.trim();
    if (!isWebhookEventType(t)) throw invalid(unknownEvent(t));
    wanted.add(t);
  }
  if (wanted.size === 0) throw invalid(EVENTS_REQUIRED);
  return WEBHOOK_EVENT_TYPES.filter((t) => wanted.has(t));
}

/**
 * The URL, normalised; https only (http too with allowPrivate, for local receivers), no user name or
 * password, and a host whose every address is public. `resolve` is the DNS lookup (tests pass theirs).
 */
export async function parseEndpointUrl(
  raw: string,
  opts: { allowPrivate: boolean; allow?: AllowList; resolve?: (host: string) => Promise<string[]> },
): Promise<string> {
  const text = raw.trim();
  if (text.length > MAX_URL_CHARS) throw invalid(URL_TOO_LONG);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(URL_INVALID);
  }
  const schemes = opts.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol) || url.username || url.password || !url.hostname) throw invalid(URL_INVALID);
  url.hash = '';
  if (opts.allowPrivate) return url.href;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.resolve ?? resolveAll)(host);
    } catch {
      throw invalid(HOST_NOT_FOUND);
    }
  }
  if (addresses.length === 0) throw invalid(HOST_NOT_FOUND);
  const allow = opts.allow ?? EMPTY_ALLOW_LIST;
  if (allow.hosts.has(host.toLowerCase())) return url.href;
  if (addresses.some((a) => addressRefusal(a, { allowPrivate: false, allow }))) throw invalid(ADDRESS_NOT_ALLOWED);
  return url.href;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((a) => a.address);
}
