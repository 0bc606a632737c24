// The one rule for a registration removed at the provider (docs/adr/0076-registrations-at-the-provider.md):
// each provider's refusal is taken as the registration gone, anything out of reach as "try again";
// and the clients' answers read as untrusted (a Graph answer without `success: true`, a Twilio number
// without a SID of Twilio's shape, a number SID not Twilio's shape never put in a path).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MetaError, metaApi } from '../meta-api.ts';
import { providerRefused } from '../registrations.ts';
import { SlackError } from '../slack-api.ts';
import { TelegramError } from '../telegram-api.ts';
import { TwilioError, twilioApi } from '../twilio-api.ts';

let server: Server | undefined;
const paths: string[] = [];
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
  paths.length = 0;
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const SID = 'AC0123456789abcdef0123456789abcdef';
const AUTH_TOKEN = '0123456789abcdef0123456789ab1234';
const META_TOKEN = 'EAAGfakePageTokenForParleyTests0123456789PAGE';

describe('providerRefused', () => {
  it("takes every provider's refusal as the registration gone, and an outage, a rate limit or anything else as try again", () => {
    const refused = [
      new TelegramError('Unauthorized', 401),
      new SlackError('token_revoked', 401),
      new SlackError('invalid_client_id', 400),
      new MetaError('Invalid OAuth access token.', 401),
      new TwilioError('The requested resource was not found', 404, 20404),
    ];
    const tryAgain = [
      new TelegramError('Telegram could not be reached (TimeoutError)', 0),
      new SlackError('ratelimited', 429),
      new MetaError('Rate limit hit', 400, true),
      new MetaError('Service temporarily unavailable', 503),
      new TwilioError('Service unavailable', 503),
      new Error('a bug, not a provider'),
      'not even an error',
    ];
    expect(refused.map(providerRefused)).toEqual(refused.map(() => true));
    expect(tryAgain.map(providerRefused)).toEqual(tryAgain.map(() => false));
  });
});

describe("the clients' answers", () => {
  it("Graph's subscription is done only on success: true", async () => {
    const meta = metaApi({ baseUrl: await serve(json({ success: 'yes' })), timeoutMs: 2000 });
    const err = await meta.subscribeApp(META_TOKEN, '201234567890123', ['messages']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MetaError);
    expect((err as MetaError).retryable).toBe(true);
    expect(await meta.unsubscribeApp(META_TOKEN, '../me').catch((e: MetaError) => e.status)).toBe(400);
    expect(paths).toEqual(['POST /201234567890123/subscribed_apps']);
  });

  it("a Twilio number without a SID of Twilio's shape is not taken, and a malformed SID goes into no path", async () => {
    const twilio = twilioApi({
      baseUrl: await serve(json({ incoming_phone_numbers: [{ phone_number: '+15550100100', sid: '../../Messages' }] })),
      timeoutMs: 2000,
    });
    const err = await twilio.findNumber(SID, AUTH_TOKEN, '+15550100100').catch((e: unknown) => e);
    expect([err instanceof TwilioError, (err as TwilioError).retryable]).toEqual([true, true]);
    expect(await twilio.findNumber(SID, AUTH_TOKEN, '+15550100999')).toBeNull();
    expect(await twilio.setSmsWebhook(SID, AUTH_TOKEN, '../../Messages', '').catch((e: TwilioError) => e.status)).toBe(400);
    expect(paths.every((p) => p.startsWith(`GET /2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json?`))).toBe(true);
  });

  it("reads a number's webhook only as a string", async () => {
    const twilio = twilioApi({ baseUrl: await serve(json({ sms_url: { href: 'https://elsewhere.example' } })), timeoutMs: 2000 });
    expect(await twilio.smsWebhook(SID, AUTH_TOKEN, `PN${'0'.repeat(32)}`)).toEqual({ smsUrl: '' });
  });
});
