// Where a chatbot may run (ADR 19): the one rule, applied to every public call about a chatbot
// (its public lookup, a message, a rating, a proof-of-work challenge) as soon as the chatbot is known.
// The gateway tells where a request came from: `siteHost`, the host name of another web site whose
// page sent it (from its Origin, lower case), empty for Parley's own pages and for a request without
// an Origin; `embedded`, Parley's own page is the embed page inside the widget.
//
// A request from another site is allowed when the owner listed no domain (anywhere) or listed that
// very host (exact match, case-insensitive: a listed "shop.example.com" does not admit
// "www.shop.example.com"). A request from Parley's own pages is allowed when it is the embed page
// (the widget's own frame, which only the listed sites may frame) or while the standalone page is on.
import type { Embedding, PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { forbidden } from '@parley/common/rpc-errors.ts';

export const SITE_NOT_ALLOWED = 'This chatbot is not available on this website.';
export const siteNotAllowed = () => forbidden(SITE_NOT_ALLOWED);

/** Where a request came from, as the gateway saw it. */
export interface VisitorSite {
  siteHost: string;
  embedded: boolean;
}

/** What the rule reads of a chatbot's embedding. */
export type EmbeddingRule = Pick<Embedding, 'allowedDomains' | 'standalonePage'>;

/** A chatbot whose embedding is absent (a chatbot service that does not send it yet) runs anywhere, standalone page on. */
export const DEFAULT_EMBEDDING: EmbeddingRule = { allowedDomains: [], standalonePage: true };

export const embeddingOf = (chatbot: Pick<PublicChatbot, 'embedding'>): EmbeddingRule => chatbot.embedding ?? DEFAULT_EMBEDDING;

export function siteAllowed({ siteHost, embedded }: VisitorSite, embedding: EmbeddingRule): boolean {
  const host = siteHost.trim().toLowerCase();
  if (host) return embedding.allowedDomains.length === 0 || embedding.allowedDomains.some((d) => d.trim().toLowerCase() === host);
  return embedded || embedding.standalonePage;
}

/** Throws PERMISSION_DENIED with the visitor's message when the chatbot may not run where the request came from. */
export function checkSite(site: VisitorSite, chatbot: Pick<PublicChatbot, 'embedding'>): void {
  if (!siteAllowed(site, embeddingOf(chatbot))) throw siteNotAllowed();
}

/** The request's site as the RPC carries it (an absent field reads as Parley's own page, not embedded). */
export const parseVisitorSite = (raw: { siteHost?: string; embedded?: boolean }): VisitorSite => ({
  siteHost: (raw.siteHost ?? '').trim().toLowerCase(),
  embedded: raw.embedded === true,
});
