import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { SECRET_ONCE_TEXT } from '../components/secret-reveal';
import { NOT_ALLOWED_TEXT, NO_KEYS_TEXT } from '../components/developers-page';

const SECRET = `parley_sk_${'a'.repeat(39)}Zz09`;

function apiKey(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'ApiKey' as const,
    id: 'k1',
    name: 'CI deploys',
    scopes: ['chatbots:read'],
    chatbotIds: [] as string[],
    prefix: 'parley_sk_',
    lastFour: 'Wx12',
    createdByEmail: 'ada@example.com',
    createdAt: '2026-03-01T09:00:00.000Z',
    expiresAt: null as string | null,
    revokedAt: null as string | null,
    lastUsedAt: null as string | null,
    previousSecretExpiresAt: null as string | null,
    ...overrides,
  };
}

const scopes = [
  { __typename: 'ApiScope' as const, name: 'chat', description: "Send messages to the workspace's chatbots." },
  { __typename: 'ApiScope' as const, name: 'chatbots:read', description: 'Read chatbots.' },
];

function developers(permissions: string[]) {
  return () => ({
    data: {
      currentWorkspace: { __typename: 'Workspace' as const, id: 'u1', name: "Ada's workspace", permissions },
      apiScopes: scopes,
    },
  });
}

function openDevelopersPage(handlers: Record<string, Handler> = {}) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: sampleUser } }),
    Chatbots: () => ({
      data: { chatbots: [sampleChatbot({ id: 'c1', name: 'Acme Support' }), sampleChatbot({ id: 'c2', name: 'Sales' })] },
    }),
    Developers: developers(['workspace:read', 'apikeys:manage']),
    ApiKeys: () => ({ data: { apiKeys: [] } }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/workspace/developers', mock.link) };
}

describe('Developers page', () => {
  beforeEach(() => {
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: vi.fn(() => Promise.resolve()) }, configurable: true });
  });
  afterEach(() => {
    Reflect.deleteProperty(navigator, 'clipboard');
    vi.restoreAllMocks();
  });

  it('lists the keys by name, masked secret, scopes and chatbots, never asking for a secret', async () => {
    openDevelopersPage({
      ApiKeys: () => ({
        data: {
          apiKeys: [
            apiKey({ chatbotIds: ['c2'], lastUsedAt: '2026-03-02T10:00:00.000Z' }),
            apiKey({ id: 'k2', name: 'Old', revokedAt: '2026-03-03T10:00:00.000Z' }),
          ],
        },
      }),
    });
    const list = await screen.findByRole('list', { name: 'API keys' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(first?.textContent).toContain('CI deploys');
    expect(first?.textContent).toContain('parley_sk_…Wx12');
    expect(first?.textContent).toContain('chatbots:read');
    expect(first?.textContent).toContain('Active');
    expect(within(first!).getByRole('button', { name: 'Roll CI deploys' })).toBeTruthy();
    expect(second?.textContent).toContain('Revoked');
    expect(within(second!).queryByRole('button', { name: 'Revoke Old' })).toBeNull();
    expect(screen.getByText(/curl http:\/\/localhost(:\d+)?\/api\/v1\/chatbots/)).toBeTruthy();
    expect(screen.getByRole('link', { name: /API reference/ }).getAttribute('href')).toBe('/developers/api');
  });

  it('hides the keys and the create button from a role without apikeys:manage, and never asks for them', async () => {
    const { calls } = openDevelopersPage({ Developers: developers(['workspace:read', 'chatbots:write']) });
    expect(await screen.findByText(NOT_ALLOWED_TEXT)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create key' })).toBeNull();
    expect(calls.some((c) => c.operationName === 'ApiKeys')).toBe(false);
  });

  it('creates a key with scopes and chatbots, reveals its secret once, then forgets it', async () => {
    let keys = [] as ReturnType<typeof apiKey>[];
    const { calls } = openDevelopersPage({
      ApiKeys: () => ({ data: { apiKeys: keys } }),
      CreateApiKey: () => {
        keys = [apiKey({ name: 'Zapier', lastFour: 'Zz09', chatbotIds: ['c1'] })];
        return { data: { createApiKey: { __typename: 'IssuedApiKey', secret: SECRET, apiKey: keys[0] } } };
      },
    });
    expect(await screen.findByText(NO_KEYS_TEXT)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Create key' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Create API key' }));

    fireEvent.click(dialog.getByRole('button', { name: 'Create key' }));
    expect((await dialog.findByRole('alert')).textContent).toBe('Give the key a name.');
    fireEvent.change(dialog.getByLabelText('Name'), { target: { value: ' Zapier ' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Create key' }));
    expect((await dialog.findByRole('alert')).textContent).toBe('Choose at least one scope.');
    fireEvent.click(dialog.getByRole('checkbox', { name: /chatbots:read/ }));
    fireEvent.click(dialog.getByRole('radio', { name: 'Only some chatbots' }));
    fireEvent.click(await dialog.findByRole('checkbox', { name: 'Acme Support' }));
    fireEvent.change(dialog.getByLabelText('Expires'), { target: { value: '30' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Create key' }));

    const reveal = within(await screen.findByRole('dialog', { name: 'Your new API key' }));
    expect(reveal.getByText(SECRET_ONCE_TEXT)).toBeTruthy();
    expect((reveal.getByRole('textbox', { name: 'Secret' }) as HTMLInputElement).value).toBe(SECRET);
    fireEvent.click(reveal.getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(navigator.clipboard.writeText).toHaveBeenCalledWith(SECRET));
    const input = calls.find((c) => c.operationName === 'CreateApiKey')?.variables.input as Record<string, unknown>;
    expect(input).toMatchObject({ name: 'Zapier', scopes: ['chatbots:read'], chatbotIds: ['c1'] });
    expect(typeof input.expiresAt).toBe('string');

    const done = reveal.getByRole('button', { name: 'Done' }) as HTMLButtonElement;
    expect(done.disabled).toBe(true);
    fireEvent.click(reveal.getByRole('checkbox'));
    fireEvent.click(done);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect((await screen.findByRole('list', { name: 'API keys' })).textContent).toContain('parley_sk_…Zz09');
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it("rolls a key with the overlap chosen and shows the new secret; shows the server's refusal", async () => {
    const { calls } = openDevelopersPage({
      ApiKeys: () => ({ data: { apiKeys: [apiKey()] } }),
      RollApiKey: () => ({ data: { rollApiKey: { __typename: 'IssuedApiKey', secret: SECRET, apiKey: apiKey({ lastFour: 'Zz09' }) } } }),
      RevokeApiKey: () => graphqlError('Only an admin or above in this workspace can manage API keys.', 'FORBIDDEN'),
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Roll CI deploys' }));
    const roll = within(await screen.findByRole('dialog', { name: 'Roll “CI deploys”' }));
    fireEvent.click(roll.getByRole('radio', { name: /7 days/ }));
    fireEvent.click(roll.getByRole('button', { name: 'Roll key' }));
    const reveal = within(await screen.findByRole('dialog', { name: 'Your new secret' }));
    expect((reveal.getByRole('textbox', { name: 'Secret' }) as HTMLInputElement).value).toBe(SECRET);
    expect(calls.find((c) => c.operationName === 'RollApiKey')?.variables).toEqual({ id: 'k1', overlap: 'SEVEN_DAYS' });
    fireEvent.click(reveal.getByRole('checkbox'));
    fireEvent.click(reveal.getByRole('button', { name: 'Done' }));

    fireEvent.click(await screen.findByRole('button', { name: 'Revoke CI deploys' }));
    const revoke = within(await screen.findByRole('dialog', { name: 'Revoke “CI deploys”?' }));
    fireEvent.click(revoke.getByRole('button', { name: 'Revoke key' }));
    expect((await revoke.findByRole('alert')).textContent).toBe('Only an admin or above in this workspace can manage API keys.');
    fireEvent.keyDown(document, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('keeps the focus inside a dialog and gives it back when the dialog closes', async () => {
    openDevelopersPage();
    const open = await screen.findByRole('button', { name: 'Create key' });
    open.focus();
    fireEvent.click(open);
    const dialog = within(await screen.findByRole('dialog', { name: 'Create API key' }));
    const name = dialog.getByLabelText('Name');
    expect(document.activeElement).toBe(name);
    const create = dialog.getByRole('button', { name: 'Create key' });
    create.focus();
    fireEvent.keyDown(document, { key: 'Tab' });
    expect(document.activeElement).toBe(name);
    fireEvent.keyDown(document, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(create);
    fireEvent.keyDown(document, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Create key' }));
  });

  it('says so when the keys cannot be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    openDevelopersPage({ ApiKeys: () => graphqlError('down', 'SERVICE_UNAVAILABLE') });
    expect((await screen.findByRole('alert')).textContent).toBe('Could not load your API keys. Please try again later.');
  });
});
