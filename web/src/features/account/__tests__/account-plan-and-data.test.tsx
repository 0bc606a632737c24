import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadTextFile } from '../../../lib/download-file';
import { redirectTo } from '../../../lib/redirect';
import { accountSection, accountUser, openAccountPage } from '../../../test/account-fixtures';
import { graphqlError } from '../../../test/mock-link';

vi.mock('../../../lib/redirect', () => ({ redirectTo: vi.fn() }));
vi.mock('../../../lib/download-file', () => ({ downloadTextFile: vi.fn() }));

const proAnswers = { AccountDetails: () => ({ data: { me: { ...accountUser, subscription: 'pro' } } }) };

describe('Account page: plan', () => {
  afterEach(() => vi.mocked(redirectTo).mockClear());

  it('shows a free plan as the dashboard does and upgrades through the checkout', async () => {
    const { calls } = openAccountPage({
      CreateCustomer: () => ({ data: { createCustomer: true } }),
      CreateCheckoutSession: () => ({
        data: { createCheckoutSession: { __typename: 'CheckoutSession', url: 'http://localhost/checkout/cs_1' } },
      }),
    });
    const plan = await accountSection('Plan');
    expect(plan.getByText('free Plan')).toBeTruthy();
    expect(plan.queryByRole('button', { name: 'Manage subscription' })).toBeNull();
    fireEvent.click(plan.getByRole('button', { name: 'Upgrade Plan' }));
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('http://localhost/checkout/cs_1'));
    expect(calls.find((c) => c.operationName === 'CreateCheckoutSession')?.variables).toMatchObject({
      input: { mode: 'subscription', lineItems: [{ price: 'pro', quantity: 1 }] },
    });
  });

  it('sends a pro owner to the billing portal, "Opening..." meanwhile', async () => {
    let answer: ((value: { data: { createBillingPortalSession: string } }) => void) | undefined;
    openAccountPage({ ...proAnswers, CreateBillingPortalSession: () => new Promise((resolve) => (answer = resolve)) });
    const plan = await accountSection('Plan');
    expect(await plan.findByText('pro Plan')).toBeTruthy();
    expect(plan.queryByRole('button', { name: 'Upgrade Plan' })).toBeNull();
    fireEvent.click(plan.getByRole('button', { name: 'Manage subscription' }));
    expect(((await plan.findByRole('button', { name: 'Opening...' })) as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() => expect(answer).toBeDefined());
    answer!({ data: { createBillingPortalSession: 'http://localhost/billing/portal/bps_1' } });
    await waitFor(() => expect(redirectTo).toHaveBeenCalledWith('http://localhost/billing/portal/bps_1'));
  });

  it('shows why the billing portal could not be opened, and the button works again', async () => {
    openAccountPage({
      ...proAnswers,
      CreateBillingPortalSession: () => graphqlError('No subscription to manage.', 'BAD_USER_INPUT'),
    });
    const plan = await accountSection('Plan');
    fireEvent.click(await plan.findByRole('button', { name: 'Manage subscription' }));
    expect((await plan.findByRole('alert')).textContent).toBe('No subscription to manage.');
    expect((plan.getByRole('button', { name: 'Manage subscription' }) as HTMLButtonElement).disabled).toBe(false);
    expect(redirectTo).not.toHaveBeenCalled();
  });
});

describe('Account page: your data', () => {
  const fetchMock = vi.fn<typeof fetch>();
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    fetchMock.mockReset();
    vi.mocked(downloadTextFile).mockClear();
  });

  it('downloads GET /api/user/export with the bearer token as parley-data-{today}.json', async () => {
    const json = '{"account":{"email":"ada@example.com"},"chatbots":[],"usage":[]}';
    fetchMock.mockResolvedValue(new Response(json, { status: 200, headers: { 'content-type': 'application/json' } }));
    openAccountPage();
    const data = await accountSection('Your data');
    fireEvent.click(data.getByRole('button', { name: 'Download my data' }));

    await waitFor(() => expect(downloadTextFile).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/user/export');
    expect(new Headers(init?.headers).get('authorization')).toBe('Bearer good');
    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    expect(vi.mocked(downloadTextFile).mock.calls[0]).toEqual([`parley-data-${day}.json`, json, 'application/json']);
    expect(data.queryByRole('alert')).toBeNull();
  });

  it("shows the server's message when the export is refused", async () => {
    fetchMock.mockResolvedValue(
      new Response(JSON.stringify({ message: 'Service temporarily unavailable. Please try again.' }), { status: 503 }),
    );
    openAccountPage();
    const data = await accountSection('Your data');
    fireEvent.click(data.getByRole('button', { name: 'Download my data' }));
    expect((await data.findByRole('alert')).textContent).toBe('Service temporarily unavailable. Please try again.');
    expect(downloadTextFile).not.toHaveBeenCalled();
    expect((data.getByRole('button', { name: 'Download my data' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('says it could not download when the network fails', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    openAccountPage();
    const data = await accountSection('Your data');
    fireEvent.click(data.getByRole('button', { name: 'Download my data' }));
    expect((await data.findByRole('alert')).textContent).toBe('Could not download your data. Please try again.');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Account');
  });
});
