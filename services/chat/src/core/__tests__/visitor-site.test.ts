import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { EmbeddingSchema, PublicChatbotSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { Code, ConnectError } from '@connectrpc/connect';
import { checkSite, parseVisitorSite, siteAllowed, SITE_NOT_ALLOWED } from '../visitor-site.ts';

const anywhere = { allowedDomains: [], standalonePage: true };
const shopOnly = { allowedDomains: ['shop.example.com'], standalonePage: true };
const widgetOnly = { allowedDomains: ['shop.example.com'], standalonePage: false };

describe('siteAllowed', () => {
  it.each([
    // another site: allowed when nothing is listed or the host is listed (exact, any case)
    ['another site, no list', { siteHost: 'evil.example', embedded: false }, anywhere, true],
    ['a listed site', { siteHost: 'shop.example.com', embedded: false }, shopOnly, true],
    ['a listed site in capitals', { siteHost: 'SHOP.Example.com', embedded: true }, shopOnly, true],
    ['a subdomain of a listed site', { siteHost: 'www.shop.example.com', embedded: false }, shopOnly, false],
    ['a site not listed', { siteHost: 'evil.example', embedded: true }, shopOnly, false],
    ['a listed site, standalone page off', { siteHost: 'shop.example.com', embedded: false }, widgetOnly, true],
    // Parley's own pages: the embed page always, the standalone page while it is on
    ['the standalone page', { siteHost: '', embedded: false }, shopOnly, true],
    ['the standalone page switched off', { siteHost: '', embedded: false }, widgetOnly, false],
    ['the embed page, standalone off', { siteHost: '', embedded: true }, widgetOnly, true],
  ])('%s', (_, site, embedding, allowed) => {
    expect(siteAllowed(site, embedding)).toBe(allowed);
  });
});

describe('checkSite', () => {
  it('refuses with PERMISSION_DENIED and the visitor’s message', () => {
    const chatbot = create(PublicChatbotSchema, { embedding: create(EmbeddingSchema, widgetOnly) });
    let err: unknown;
    try {
      checkSite(parseVisitorSite({ siteHost: ' Evil.Example ' }), chatbot);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectError);
    expect(err).toMatchObject({ code: Code.PermissionDenied, rawMessage: SITE_NOT_ALLOWED });
  });

  it('lets a chatbot without an embedding (an older chatbot service) run anywhere, standalone page on', () => {
    const chatbot = create(PublicChatbotSchema, {});
    expect(() => checkSite(parseVisitorSite({}), chatbot)).not.toThrow();
    expect(() => checkSite(parseVisitorSite({ siteHost: 'any.example' }), chatbot)).not.toThrow();
  });
});
