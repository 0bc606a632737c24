// Stripe events in: the signature is verified on the raw body with the webhook's signing secret (the
// stripe SDK, its default 5-minute tolerance, so an old delivery replayed later is refused), then the
// event is queued for billing under its own id, so a redelivery is queued once; billing applies each
// event once. The webhook path and the test-mode checkout page both go through receive().
import { randomBytes } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type StripeSdk from 'stripe';
import { StripeEventReceivedSchema } from '@parley/proto/parley/events/v1/stripe_event_received_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import type { Redis } from '@parley/common/redis.ts';
import { HttpError } from '../../http/errors.ts';
import { stripeSdk } from './stripe-sdk.ts';

export const MISSING_SIGNATURE_MESSAGE = 'Missing Stripe-Signature header';
export const INVALID_SIGNATURE_MESSAGE = 'Invalid Stripe signature';
export const STALE_SIGNATURE_MESSAGE = 'Stale Stripe signature: the event was signed more than 5 minutes ago';
export const NOT_ACCEPTED_MESSAGE = 'The event could not be queued; please retry';

export interface StripeEventIntake {
  /** The secret events are verified (and test-mode events signed) with. */
  readonly secret: string;
  /** Verifies and queues one delivery; resolves with the event's id. Throws HttpError 400 or 503. */
  receive(rawBody: Buffer | string, signatureHeader: string | undefined): Promise<{ eventId: string; type: string }>;
  close(): Promise<void>;
}

/**
 * Without a configured secret, a random one for this process: only events this gateway signs itself
 * (the test-mode checkout page) can pass, never a forged delivery.
 */
export function webhookSecret(configured: string | undefined): { secret: string; generated: boolean } {
  if (configured) return { secret: configured, generated: false };
  return { secret: `whsec_local_${randomBytes(32).toString('base64url')}`, generated: true };
}

export function createStripeEventIntake(opts: { redis: Redis; prefix: string; secret: string; logger: Logger }): StripeEventIntake {
  const producer: Producer<typeof StripeEventReceivedSchema> = createProducer(opts.redis, QUEUES.stripeEvents, StripeEventReceivedSchema, {
    prefix: opts.prefix,
  });
  return {
    secret: opts.secret,
    async receive(rawBody, signatureHeader) {
      const payload = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
      const event = verify(await stripeSdk(), payload, signatureHeader, opts.secret);
      try {
        await producer.publish(
          create(StripeEventReceivedSchema, { eventId: event.id, type: event.type, payload, receivedAt: timestampFromDate(new Date()) }),
          event.id,
        );
      } catch (err) {
        // Not acknowledged, so Stripe delivers it again later.
        opts.logger.error({ eventId: event.id, err: (err as Error).message }, 'stripe event not queued');
        throw new HttpError(503, NOT_ACCEPTED_MESSAGE);
      }
      opts.logger.info({ eventId: event.id, type: event.type }, 'stripe event queued');
      return { eventId: event.id, type: event.type };
    },
    close: () => producer.close(),
  };
}

/** The verified event's id and type; HttpError 400 for anything Stripe would not have sent. */
function verify(
  Stripe: typeof StripeSdk,
  payload: string,
  signatureHeader: string | undefined,
  secret: string,
): { id: string; type: string } {
  if (!signatureHeader) throw new HttpError(400, MISSING_SIGNATURE_MESSAGE);
  let event: unknown;
  try {
    event = Stripe.webhooks.constructEvent(payload, signatureHeader, secret);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new HttpError(400, /tolerance/.test(err.message) ? STALE_SIGNATURE_MESSAGE : INVALID_SIGNATURE_MESSAGE);
    }
    // Signed, but not JSON (parsePayload threw).
    throw new HttpError(400, 'The event is not valid JSON');
  }
  const { id, type } = (event ?? {}) as { id?: unknown; type?: unknown };
  if (typeof id !== 'string' || !/^evt_[A-Za-z0-9_-]+$/.test(id) || id.length > 255) throw new HttpError(400, 'The event has no valid id');
  if (typeof type !== 'string' || type === '' || type.length > 255) throw new HttpError(400, 'The event has no type');
  return { id, type };
}
