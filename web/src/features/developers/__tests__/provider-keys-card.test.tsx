import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

const OWN_KEY = 'sk-ant-workspace-own-key-abcd';
const saved = { __typename: 'ProviderKey' as const, provider: 'anthropic', lastFour: 'abcd', createdAt: '2026-03-01T09:00:00.000Z' };

function developers(permissions: string[]) {
  return () => ({
    data: { currentWorkspace: { __typename: 'Workspace' as const, id: 'u1', name: "Ada's workspace", permissions }, apiScopes: [] },
  });
}

function openDevelopersPage(handlers: Record<string, Handler> = {}, permissions = ['workspace:read', 'apikeys:manage']) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: sampleUser } }),
    Chatbots: () => ({ data: { chatbots: [] } }),
    Developers: developers(permissions),
    ApiKeys: () => ({ data: { apiKeys: [] } }),
    ProviderKeys: () => ({ data: { providerKeys: [] } }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/workspace/developers', mock.link) };
}

describe('the Provider keys card', () => {
  it('saves a key through a password field, then shows only its last four characters and when it was saved', async () => {
    let stored: (typeof saved)[] = [];
    const { calls } = openDevelopersPage({
      ProviderKeys: () => ({ data: { providerKeys: stored } }),
      SetProviderKey: () => {
        stored = [saved];
        return { data: { setProviderKey: saved } };
      },
    });
    const field = await screen.findByLabelText('Anthropic API key');
    expect(field.getAttribute('type')).toBe('password');
    fireEvent.change(field, { target: { value: OWN_KEY } });
    fireEvent.click(within(field.closest('form')!).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('•••• abcd')).toBeTruthy();
    expect(screen.getByText(/saved on/)).toBeTruthy();
    expect(screen.queryByLabelText('Anthropic API key')).toBeNull();
    expect(calls.find((c) => c.operationName === 'SetProviderKey')?.variables).toEqual({ provider: 'anthropic', key: OWN_KEY });
    // The page never shows the key again.
    expect(document.body.textContent).not.toContain(OWN_KEY);
    expect(screen.getByLabelText('OpenAI API key')).toBeTruthy();
  });

  it("shows the provider's refusal and keeps nothing in the field", async () => {
    openDevelopersPage({ SetProviderKey: () => graphqlError('The provider refused this key.', 'BAD_USER_INPUT') });
    const field = await screen.findByLabelText('Anthropic API key');
    fireEvent.change(field, { target: { value: OWN_KEY } });
    fireEvent.click(within(field.closest('form')!).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('The provider refused this key.')).toBeTruthy();
    expect((screen.getByLabelText('Anthropic API key') as HTMLInputElement).value).toBe('');
  });

  it('removes a key after a confirmation', async () => {
    let stored = [saved];
    const { calls } = openDevelopersPage({
      ProviderKeys: () => ({ data: { providerKeys: stored } }),
      RemoveProviderKey: () => {
        stored = [];
        return { data: { removeProviderKey: true } };
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Remove' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain("Parley's key again");
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove key' }));
    expect(await screen.findByLabelText('Anthropic API key')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.operationName === 'RemoveProviderKey')?.variables).toEqual({ provider: 'anthropic' });
  });

  it('is not shown to a member who may not manage keys, and asks nothing', async () => {
    const { calls } = openDevelopersPage({}, ['workspace:read']);
    expect(await screen.findByText(/Only owners and admins/)).toBeTruthy();
    expect(screen.queryByText('Provider keys')).toBeNull();
    expect(calls.some((c) => c.operationName === 'ProviderKeys')).toBe(false);
  });
});
