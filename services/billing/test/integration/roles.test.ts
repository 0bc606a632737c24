// The member's role on the gateway's calls (docs/adr/0030-workspaces.md): each owner-facing method
// needs the permission of src/permissions.ts, a gateway call without a role is refused, and the
// calls of the chat and chatbot services (which carry none) are not checked.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingService, CheckoutProduct } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET, type Caller } from '@parley/common/service-auth.ts';
import { rpcError } from '@parley/common/testing/rpc.ts';
import { billingPermissions, billingUnchecked } from '../../src/permissions.ts';
import { startBilling, type Billing } from './harness.ts';

let billing: Billing;
beforeAll(async () => {
  billing = await startBilling({ workers: false, env: { STRIPE_SECRET_KEY: '', STRIPE_API_BASE: '' } });
});
afterAll(async () => {
  await billing?.stop();
});

const as = (caller: Caller, role?: string) =>
  createServiceClient(BillingService, billing.url, { credentials: { caller, secret: DEVELOPMENT_SERVICE_SECRET }, role });
const range = {
  startTime: timestampFromDate(new Date('2026-01-01T00:00:00Z')),
  endTime: timestampFromDate(new Date('2026-02-01T00:00:00Z')),
};
const checkout = (ownerId: string) => ({
  ownerId,
  email: 'owner@example.com',
  product: CheckoutProduct.PRO_SUBSCRIPTION,
  successUrl: `${billing.config.PUBLIC_URL}/dashboard`,
  cancelUrl: `${billing.config.PUBLIC_URL}/pricing`,
});

describe("the gateway's calls carry the member's role", () => {
  it('names every method of the service: checked with a permission, or public or between services', () => {
    const checked = [...billingPermissions.keys()].map((path) => path.split('/').pop());
    expect([...checked, ...billingUnchecked].sort()).toEqual(BillingService.methods.map((m) => m.name).sort());
  });

  it('lets a viewer read usage but not start a checkout or open the portal; an owner may', async () => {
    const ownerId = crypto.randomUUID();
    await as('gateway').getAccount({ ownerId });
    const viewer = as('gateway', 'viewer');
    expect((await viewer.getUsageReport({ ownerId, ...range })).totals).toBeDefined();
    for (const role of ['viewer', 'agent', 'editor', 'admin']) {
      expect((await rpcError(as('gateway', role).createCheckoutSession(checkout(ownerId)))).code).toBe(Code.PermissionDenied);
      expect((await rpcError(as('gateway', role).createPortalSession({ ownerId, returnUrl: billing.config.PUBLIC_URL }))).code).toBe(
        Code.PermissionDenied,
      );
    }
    expect((await as('gateway', 'owner').createCheckoutSession(checkout(ownerId))).url).toMatch(/^http/);
  });

  it('refuses an owner-facing call without a role', async () => {
    const err = await rpcError(as('gateway').getUsageReport({ ownerId: crypto.randomUUID(), ...range }));
    expect(err.code).toBe(Code.PermissionDenied);
  });

  it('checks nothing on the calls of other services, nor on the public options', async () => {
    const ownerId = crypto.randomUUID();
    expect((await as('chat').getUsageReport({ ownerId, ...range })).totals).toBeDefined();
    expect((await as('chatbot').getAccount({ ownerId })).account?.ownerId).toBe(ownerId);
    expect((await as('gateway').getBillingOptions({})).proPlanPrice).toBeTruthy();
  });
});
