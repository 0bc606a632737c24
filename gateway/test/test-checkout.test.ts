// TEST MODE end to end (billing without STRIPE_SECRET_KEY, the gateway without STRIPE_WEBHOOK_SECRET,
// as `npm start` runs on a fresh machine): checkout through the gateway leads to its local page,
// labelled "Test mode — no real payment"; Pay signs the event Stripe would send and hands it to the
// webhook's own verify-and-enqueue path, billing applies it once; Cancel changes nothing.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis, type Redis } from '@parley/common/redis.ts';
import { signStripePayload, stripeEvent, stripeEventPayload } from '@parley/common/testing/fake-stripe.ts';
import { api, gql, type Stack, startStack } from './stack.ts';
import { type Owner, registerOwner } from './chatbot-fixtures.ts';
import { accountRow, billingQuery, sleep, units, waitFor } from './billing-fixtures.ts';
import { INVALID_SIGNATURE_MESSAGE } from '../src/features/billing/stripe-events.ts';

let stack: Stack;
let redis: Redis;
let stripeQueue: Queue;

beforeAll(async () => {
  // An empty value is "unset": the gateway makes up a secret only it knows.
  stack = await startStack({ gatewayEnv: { STRIPE_WEBHOOK_SECRET: '' } });
  redis = createRedis(stack.redisUrl);
  stripeQueue = new Queue(QUEUES.stripeEvents, { connection: redis, prefix: stack.queuePrefix });
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

async function checkout(owner: Owner, body: object): Promise<{ url: string; path: string; sessionId: string }> {
  expect((await call('/api/payment/create-customer', { method: 'POST', token: owner.token })).status).toBe(200);
  const res = await call('/api/payment/create-checkout-session', { body, token: owner.token });
  expect(res.status).toBe(200);
  const url = new URL(res.body.url);
  // The page lives on the product's own address.
  expect(url.origin).toBe(new URL(stack.publicUrl).origin);
  expect(url.pathname).toMatch(/^\/checkout\/test\/[A-Za-z0-9_-]+$/);
  return { url: res.body.url, path: url.pathname, sessionId: url.pathname.split('/').pop()! };
}

const ledger = (owner: Owner) =>
  billingQuery<{ amount: string; reason: string }>(
    stack,
    `SELECT amount::text AS amount, reason FROM $schema."CreditLedgerEntry" WHERE "userId" = $1 AND reason <> 'signup_credit' ORDER BY "createdAt"`,
    [owner.userId],
  );

const PRO = { mode: 'subscription', lineItems: [{ price: 'price_pro', quantity: 1 }], metadata: { type: 'subscription', plan: 'pro' } };
const TOP_UP = { mode: 'payment', lineItems: [{ price: 'price_topup', quantity: 1 }], metadata: { type: 'credit_topup' } };

describe('billing options in test mode', () => {
  it('say test mode and what is sold, to anyone (REST and GraphQL)', async () => {
    const res = await call('/api/payment/options');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ testMode: true, topUpAmount: 5, proPlanPrice: 10, proPlanCredit: 2 });
    const graphql = await gql(stack.url, '{ billingOptions { testMode topUpAmount proPlanPrice proPlanCredit } }');
    expect(graphql.body.errors).toBeUndefined();
    const options = graphql.body.data.billingOptions;
    expect(options.testMode).toBe(true);
    expect([units(options.topUpAmount), units(options.proPlanPrice), units(options.proPlanCredit)]).toEqual([
      units('5'),
      units('10'),
      units('2'),
    ]);
  });
});

describe('test-mode checkout', () => {
  it('upgrades a free owner to pro through the local page: label, Pay, 303 to the dashboard, pro plan and +2.00 once', async () => {
    const owner = await registerOwner(stack, 'test-upgrade');
    const before = await accountRow(stack, owner);
    expect(before.plan).toBe('free');
    const session = await checkout(owner, PRO);

    const page = await browse(session.path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.html).toContain('Test mode — no real payment');
    expect(page.html).toContain('Parley Pro — $10.00 / month');
    expect(page.html).toContain(`<form method="post" action="${session.path}/pay">`);
    expect(page.html).toContain(`<form method="post" action="${session.path}/cancel">`);
    expect(page.html).not.toMatch(/<script/i);

    const paid = await browse(`${session.path}/pay`, 'POST');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${stack.publicUrl}/dashboard`);
    // Through the webhook's queue, under the event id Stripe's would have.
    const job = await stripeQueue.getJob(`evt_test_${session.sessionId}`);
    expect(job?.data).toMatchObject({ eventId: `evt_test_${session.sessionId}`, type: 'checkout.session.completed' });
    expect(JSON.parse(job!.data.payload).data.object).toMatchObject({
      id: session.sessionId,
      client_reference_id: owner.userId,
      mode: 'subscription',
    });

    const after = await waitFor(
      () => accountRow(stack, owner),
      (a) => a.plan === 'pro',
    );
    expect(after.plan).toBe('pro');
    expect(units(after.creditBalance) - units(before.creditBalance)).toBe(units('2.00'));
    expect((await call('/api/auth/current', { token: owner.token })).body.subscription).toBe('pro');
    // Pro features are open: a second chatbot is allowed.
    expect((await call('/api/chatbot', { body: { name: 'First' }, token: owner.token })).status).toBe(201);
    expect((await call('/api/chatbot', { body: { name: 'Second' }, token: owner.token })).status).toBe(201);

    // The page knows it was paid; paying again (a double click, a back button) changes nothing.
    await waitFor(
      async () => (await browse(session.path)).html,
      (html) => html.includes('already been paid'),
    );
    expect((await browse(session.path)).html).toContain('This checkout has already been paid.');
    expect((await browse(`${session.path}/pay`, 'POST')).status).toBe(303);
    await sleep(500);
    expect(await accountRow(stack, owner)).toEqual(after);
    expect(await ledger(owner)).toEqual([expect.objectContaining({ reason: 'pro_plan_credit' })]);
  });

  it('tops up by the top-up amount once, leaving the plan as it was', async () => {
    const owner = await registerOwner(stack, 'test-topup');
    const before = await accountRow(stack, owner);
    const session = await checkout(owner, TOP_UP);
    const page = await browse(session.path);
    expect(page.html).toContain('Credit top-up — $5.00');
    expect(page.html).toContain('Test mode — no real payment');

    const [first, second] = await Promise.all([browse(`${session.path}/pay`, 'POST'), browse(`${session.path}/pay`, 'POST')]);
    expect([first.status, second.status]).toEqual([303, 303]);
    const after = await waitFor(
      () => accountRow(stack, owner),
      (a) => a.creditBalance !== before.creditBalance,
    );
    await sleep(500);
    expect(await accountRow(stack, owner)).toEqual(after);
    expect(units(after.creditBalance) - units(before.creditBalance)).toBe(units('5.00'));
    expect(after.plan).toBe('free');
    expect(await ledger(owner)).toEqual([expect.objectContaining({ reason: 'credit_topup' })]);
  });

  it('Cancel returns to the cancel URL and applies nothing', async () => {
    const owner = await registerOwner(stack, 'test-cancel');
    const before = await accountRow(stack, owner);
    const session = await checkout(owner, { ...PRO, cancelUrl: `${stack.publicUrl}/pricing?cancelled=1` });
    const cancelled = await browse(`${session.path}/cancel`, 'POST');
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get('location')).toBe(`${stack.publicUrl}/pricing?cancelled=1`);
    await sleep(500);
    expect(await stripeQueue.getJob(`evt_test_${session.sessionId}`)).toBeUndefined();
    expect(await accountRow(stack, owner)).toEqual(before);
  });

  it('answers an unknown session with a 404 page, and paying it queues nothing', async () => {
    for (const id of ['cs_test_local_doesnotexist', 'x'.repeat(300), '%3Cscript%3E']) {
      const page = await browse(`/checkout/test/${id}`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.html).toContain('Checkout not found');
      expect(page.html).not.toContain('<script>');
      const pay = await browse(`/checkout/test/${id}/pay`, 'POST');
      expect(pay.status).toBe(404);
    }
    expect((await browse('/checkout/test/cs_test_local_doesnotexist/elsewhere')).status).toBe(404);
    expect(await stripeQueue.getJob('evt_test_cs_test_local_doesnotexist')).toBeUndefined();
  });

  it('refuses a webhook delivery signed with any secret but its own', async () => {
    const event = stripeEvent('checkout.session.completed', { id: 'cs_test_forged', object: 'checkout.session', mode: 'payment' });
    const payload = stripeEventPayload(event);
    expect(stack.webhookSecret).toBeUndefined();
    for (const secret of ['whsec_test', 'whsec_', `whsec_test_${stack.queuePrefix}`]) {
      const res = await call('/api/payment/webhook', {
        rawBody: payload,
        headers: { 'stripe-signature': signStripePayload(payload, secret) },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: INVALID_SIGNATURE_MESSAGE });
    }
    expect(await stripeQueue.getJob(event.id)).toBeUndefined();
  });
});
