// Checkout as the gateway sees it, shared by REST and GraphQL: the owner's Stripe customer, and a
// checkout session for one of the two products the server sells. The client's checkout payload only
// SELECTS the product (mode and metadata); price, quantity and amount are billing's configuration,
// and the return URLs must be on the product's own origin, so a checkout can never redirect a
// browser anywhere else.
import { CheckoutProduct } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';
import { recordBillingAction } from '../workspaces/workspaces.ts';

export const UNKNOWN_MODE_MESSAGE = 'Unknown checkout mode';
export const MISMATCHED_METADATA_MESSAGE =
  'Checkout metadata does not match the mode: a subscription is the pro plan, a payment is a credit top-up';

/** The checkout payload (docs/product.md, Plans, credit and checkout), typed; lineItems are accepted and ignored (the server decides what is sold). */
export interface CheckoutRequest {
  mode: string;
  metadata?: { type?: string | null; plan?: string | null } | null;
  successUrl?: string | null;
  cancelUrl?: string | null;
}

/**
 * Which product the client means. mode "subscription" is the pro plan (its metadata, when given,
 * must say type "subscription" and plan "pro"); mode "payment" with type "credit_topup" is a
 * credit top-up. Anything else is refused rather than guessed.
 */
export function selectProduct(req: Pick<CheckoutRequest, 'mode' | 'metadata'>): CheckoutProduct {
  const type = req.metadata?.type ?? undefined;
  const plan = req.metadata?.plan ?? undefined;
  switch (req.mode) {
    case 'subscription':
      if ((type === undefined || type === 'subscription') && (plan === undefined || plan === 'pro'))
        return CheckoutProduct.PRO_SUBSCRIPTION;
      throw invalid(MISMATCHED_METADATA_MESSAGE);
    case 'payment':
      if (type === 'credit_topup' && plan === undefined) return CheckoutProduct.CREDIT_TOPUP;
      throw invalid(MISMATCHED_METADATA_MESSAGE);
    default:
      throw invalid(UNKNOWN_MODE_MESSAGE);
  }
}

/**
 * A return URL of a checkout: absolute, on PUBLIC_URL's origin (scheme, host and port), without
 * credentials; absent means `fallback`. Never an open redirect.
 */
export function returnUrl(raw: string | null | undefined, field: 'successUrl' | 'cancelUrl', publicUrl: string, fallback: string): string {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const refused = invalid(`${field} must be an address on ${new URL(publicUrl).origin}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused;
  }
  if (url.origin !== new URL(publicUrl).origin || url.username || url.password) throw refused;
  return url.href;
}

/** What the server sells and whether checkout is in test mode (public: the pricing page shows it). */
export interface BillingOptionsView {
  testMode: boolean;
  /** Exact decimal dollars. */
  topUpAmount: string;
  proPlanPrice: string;
  proPlanCredit: string;
}

export async function billingOptions(clients: Clients): Promise<BillingOptionsView> {
  const { testMode, topUpAmount, proPlanPrice, proPlanCredit } = await clients.billing.getBillingOptions({});
  return { testMode, topUpAmount, proPlanPrice, proPlanCredit };
}

/** The workspace's Stripe customer id (with the member's email): billing creates it once, however often this is called. */
export async function createCustomer(clients: Clients, member: Member): Promise<string> {
  const { customerId } = await clients.billing.createCustomer({ ownerId: member.ownerId, email: member.user.email });
  return customerId;
}

/**
 * A checkout session for the workspace, started by the member (recorded in its audit log); resolves
 * with where the browser is to be sent. The caller has settled who is asking (signed out is 401,
 * whatever the payload says).
 */
export async function createCheckoutSession(clients: Clients, member: Member, req: CheckoutRequest, publicUrl: string): Promise<string> {
  const product = selectProduct(req);
  const successUrl = returnUrl(req.successUrl, 'successUrl', publicUrl, `${publicUrl}/dashboard`);
  const cancelUrl = returnUrl(req.cancelUrl, 'cancelUrl', publicUrl, `${publicUrl}/pricing`);
  const { url } = await clients.billing.createCheckoutSession({
    ownerId: member.ownerId,
    email: member.user.email,
    product,
    successUrl,
    cancelUrl,
  });
  await recordBillingAction(
    clients,
    member,
    'billing.checkout_started',
    product === CheckoutProduct.PRO_SUBSCRIPTION ? 'pro' : 'credit top-up',
    {
      mode: req.mode,
    },
  );
  return url;
}
