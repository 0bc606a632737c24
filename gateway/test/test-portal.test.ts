// TEST MODE "manage plan" end to end (billing without STRIPE_SECRET_KEY, the gateway without
// STRIPE_WEBHOOK_SECRET): a pro owner (made pro through the test checkout page) gets a portal session
// from billing whose url is the gateway's local page, labelled "Test mode — no real payment"; Cancel
// subscription signs the customer.subscription.deleted event Stripe would send and hands it to the
// webhook's own verify-and-enqueue path, billing applies it once, and the owner is back on free.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@connectrpc/connect';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { api, type Stack, startStack, TEST_SERVICE_SECRET } from './stack.ts';
import { type Owner, registerOwner } from './chatbot-fixtures.ts';
import { accountRow, billingQuery, waitFor } from './billing-fixtures.ts';
import { portalCancelEventId } from '../src/test-mode/test-portal.ts';

let stack: Stack;
let redis: Redis;
let stripeQueue: Queue;
let billing: Client<typeof BillingService>;

beforeAll(async () => {
  // An empty value is "unset": the gateway makes up a secret only it knows.
  stack = await startStack({ gatewayEnv: { STRIPE_WEBHOOK_SECRET: '' } });
  redis = createRedis(stack.redisUrl);
  stripeQueue = new Queue(QUEUES.stripeEvents, { connection: redis, prefix: stack.queuePrefix });
  // As the gateway's account page calls it.
  billing = createServiceClient(BillingService, stack.billingUrl, {
    credentials: { caller: 'gateway', secret: TEST_SERVICE_SECRET },
    // The gateway acting for the owner.
    role: 'owner',
  });
}, 120_000);

afterAll(async () => {
  await stripeQueue?.close();
  await redis?.quit();
  await stack?.close();
});

const call = (path: string, opts: Parameters<typeof api>[2] = {}) => api(stack.url, path, opts);

/** A browser's request to the page (no redirects followed, so the 303 and its Location are seen). */
async function browse(path: string, method: 'GET' | 'POST' = 'GET') {
  const res = await fetch(stack.url + path, {
    method,
    redirect: 'manual',
    headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(stack.url).origin } : {},
    body: method === 'POST' ? '' : undefined,
  });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** Pro through the test checkout page, as an owner would get there. Returns the subscription's id. */
async function makeProThroughCheckout(owner: Owner): Promise<string> {
  expect((await call('/api/payment/create-customer', { method: 'POST', token: owner.token })).status).toBe(200);
  const res = await call('/api/payment/create-checkout-session', {
    body: { mode: 'subscription', lineItems: [{ price: 'price_pro', quantity: 1 }], metadata: { type: 'subscription', plan: 'pro' } },
    token: owner.token,
  });
  expect(res.status).toBe(200);
  const path = new URL(res.body.url).pathname;
  expect((await browse(`${path}/pay`, 'POST')).status).toBe(303);
  expect(
    (
      await waitFor(
        () => accountRow(stack, owner),
        (a) => a.plan === 'pro',
      )
    ).plan,
  ).toBe('pro');
  const [subscription] = await billingQuery<{ id: string }>(stack, `SELECT id FROM $schema."Subscription" WHERE "userId" = $1`, [
    owner.userId,
  ]);
  return subscription.id;
}

async function portalPath(owner: Owner, returnUrl: string): Promise<string> {
  const { url } = await billing.createPortalSession({ ownerId: owner.userId, returnUrl });
  const parsed = new URL(url);
  // The page lives on the product's own address.
  expect(parsed.origin).toBe(new URL(stack.publicUrl).origin);
  expect(parsed.pathname).toMatch(/^\/billing\/test-portal\/bps_test_[A-Za-z0-9_-]{22}$/);
  return parsed.pathname;
}

/** The queued Stripe events that cancel this subscription. */
async function cancelEventsFor(subscriptionId: string) {
  const jobs = await stripeQueue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
  return jobs.filter(
    (job) => job.data.type === 'customer.subscription.deleted' && JSON.parse(job.data.payload).data.object.id === subscriptionId,
  );
}

describe('test-mode portal', () => {
  it('lets a pro owner cancel on the local page: label, plan and status, Cancel once, 303 back, free plan', async () => {
    const owner = await registerOwner(stack, 'portal-cancel');
    const subscriptionId = await makeProThroughCheckout(owner);
    const returnUrl = `${stack.publicUrl}/account`;
    const path = await portalPath(owner, returnUrl);

    const page = await browse(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.html).toContain('Test mode — no real payment');
    expect(page.html).toContain('Plan: Parley Pro');
    expect(page.html).toContain('Subscription status: active');
    expect(page.html).toContain(`<form method="post" action="${path}/cancel">`);
    expect(page.html).toContain('Cancel subscription');
    expect(page.html).toContain(`<a href="${returnUrl}"`);
    expect(page.html).toContain('Return to Parley');
    expect(page.html).not.toMatch(/<script/i);

    // A double click: both go back to the return URL, and the one event (its id fixed per subscription) is queued once.
    const [first, second] = await Promise.all([browse(`${path}/cancel`, 'POST'), browse(`${path}/cancel`, 'POST')]);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(first.headers.get('location')).toBe(returnUrl);
    const job = await stripeQueue.getJob(portalCancelEventId(subscriptionId));
    expect(job?.data).toMatchObject({ eventId: portalCancelEventId(subscriptionId), type: 'customer.subscription.deleted' });
    expect(JSON.parse(job!.data.payload).data.object).toMatchObject({
      id: subscriptionId,
      status: 'canceled',
      metadata: { userId: owner.userId },
    });

    const after = await waitFor(
      () => accountRow(stack, owner),
      (a) => a.plan === 'free',
    );
    expect(after.plan).toBe('free');
    expect(await billingQuery(stack, `SELECT status FROM $schema."Subscription" WHERE id = $1`, [subscriptionId])).toEqual([
      { status: 'canceled' },
    ]);
    expect((await call('/api/auth/current', { token: owner.token })).body.subscription).toBe('free');
    expect(await cancelEventsFor(subscriptionId)).toHaveLength(1);

    // The page knows; cancelling again (a back button) queues nothing more and still returns.
    const canceled = await browse(path);
    expect(canceled.html).toContain('Plan: Free');
    expect(canceled.html).toContain('Subscription status: canceled');
    expect(canceled.html).toContain('This subscription has been canceled.');
    expect(canceled.html).not.toContain('Cancel subscription');
    const again = await browse(`${path}/cancel`, 'POST');
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(returnUrl);
    expect(await cancelEventsFor(subscriptionId)).toHaveLength(1);
  });

  it('answers an unknown or expired session with a 404 page, and cancelling it queues nothing', async () => {
    const owner = await registerOwner(stack, 'portal-expired');
    const subscriptionId = await makeProThroughCheckout(owner);
    const expired = await portalPath(owner, `${stack.publicUrl}/account`);
    await billingQuery(stack, `UPDATE $schema."PortalSession" SET "expiresAt" = now() - interval '1 second' WHERE id = $1`, [
      expired.split('/').pop(),
    ]);

    for (const path of [
      expired,
      '/billing/test-portal/bps_test_doesnotexist',
      `/billing/test-portal/${'x'.repeat(300)}`,
      '/billing/test-portal/%3Cscript%3E',
    ]) {
      const page = await browse(path);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.html).toContain('Page not found');
      expect(page.html).not.toContain('<script>');
      expect((await browse(`${path}/cancel`, 'POST')).status).toBe(404);
    }
    expect((await browse(`${expired}/elsewhere`)).status).toBe(404);
    expect(await cancelEventsFor(subscriptionId)).toHaveLength(0);
    expect((await accountRow(stack, owner)).plan).toBe('pro');
  });
});
