import { act, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { proUser } from '../../../test/chatbot-fixtures';
import { graphqlError, type Handler } from '../../../test/mock-link';
import { COPIED_FEEDBACK_MS, COPY_FAILED_MESSAGE } from '../components/embed-snippet-card';
import { VISITOR_MESSAGES_NOT_WHOLE_MESSAGE } from '../embed-settings';
import { detailChatbot, openDetail } from './detail-page-fixtures';

// The answer of UpdateChatbotEmbed as the gateway gives it: the saved chatbot with the input merged in.
const saveAnswer: Handler = ({ variables }) => {
  const { appearance, limits, ...rest } = variables.input as Record<string, Record<string, unknown> | undefined>;
  return { data: { updateChatbot: detailChatbot({ ...rest, appearance, limits, updatedAt: '2025-05-01T00:00:00.000Z' }) } };
};

async function openEmbed(handlers: Record<string, Handler> = {}, chatbot: Record<string, unknown> = {}) {
  const mock = openDetail(undefined, handlers, chatbot);
  fireEvent.click(await screen.findByRole('tab', { name: 'Embed' }));
  await screen.findByRole('heading', { name: 'Appearance' });
  return mock;
}

function card(title: string) {
  return screen.getByRole('heading', { name: title }).closest('.rounded-2xl') as HTMLElement;
}

/** jsdom has no clipboard; the tab uses navigator.clipboard.writeText. */
function stubClipboard(writeText: (text: string) => Promise<void>) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
}

const saves = (calls: ReturnType<typeof openDetail>['calls']) => calls.filter((c) => c.operationName === 'UpdateChatbotEmbed');

describe('Embed tab of the chatbot detail page', () => {
  afterEach(() => {
    Reflect.deleteProperty(navigator, 'clipboard');
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('shows the snippet for this chatbot and copies it, with "Copied" for a moment', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    stubClipboard(writeText);
    await openEmbed();
    const snippet = `<script src="${window.location.origin}/widget.js" data-chatbot="pub-c1" defer></script>`;
    expect(screen.getByLabelText('Embed snippet').textContent).toBe(snippet);

    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith(snippet);
    await act(() => vi.advanceTimersByTimeAsync(COPIED_FEEDBACK_MS + 50));
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();
  });

  it('says so when the browser refuses to copy', async () => {
    stubClipboard(vi.fn().mockRejectedValue(new Error('denied')));
    await openEmbed();
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    expect((await screen.findByRole('alert')).textContent).toBe(COPY_FAILED_MESSAGE);
  });

  it('previews the launcher as it is edited, then saves only the changed appearance fields', async () => {
    const { calls } = await openEmbed({ UpdateChatbotEmbed: saveAnswer });
    const appearance = card('Appearance');
    const save = within(appearance).getByRole('button', { name: 'Save Appearance' });
    expect(save.hasAttribute('disabled')).toBe(true);
    expect(screen.getByTitle('Chat preview').getAttribute('src')).toBe('/embed/pub-c1');

    const launcher = screen.getByRole('img', { name: 'Launcher preview: Chat with support bot' });
    expect(launcher.style.backgroundColor).toBe('rgb(79, 57, 246)');
    expect(launcher.className).toContain('right-3');

    fireEvent.change(within(appearance).getByLabelText('Primary colour'), { target: { value: '#FFD700' } });
    fireEvent.click(within(appearance).getByRole('radio', { name: 'Left' }));
    fireEvent.change(within(appearance).getByLabelText('Launcher label'), { target: { value: '  Questions? Ask us ' } });
    const edited = screen.getByRole('img', { name: 'Launcher preview: Questions? Ask us' });
    expect(edited.style.backgroundColor).toBe('rgb(255, 215, 0)');
    // A light colour gets dark text.
    expect(edited.style.color).toBe('rgb(17, 24, 39)');
    expect(edited.className).toContain('left-3');
    expect((within(appearance).getByLabelText('Pick a colour') as HTMLInputElement).value).toBe('#ffd700');
    expect(saves(calls)).toHaveLength(0);

    fireEvent.click(save);
    expect(await within(appearance).findByText('Chatbot updated successfully')).toBeTruthy();
    expect(saves(calls)[0].variables).toEqual({
      id: 'c1',
      input: { appearance: { primaryColor: '#ffd700', position: 'left', launcherLabel: 'Questions? Ask us' } },
    });
    // Saved: nothing left to save, and the form shows what the server kept.
    expect((within(appearance).getByLabelText('Launcher label') as HTMLInputElement).value).toBe('Questions? Ask us');
    expect(within(appearance).getByRole('button', { name: 'Save Appearance' }).hasAttribute('disabled')).toBe(true);

    // Back to the product's colour: sent as null.
    fireEvent.click(within(appearance).getByRole('button', { name: "Use Parley's colour" }));
    expect(screen.getByRole('img', { name: /Launcher preview/ }).style.backgroundColor).toBe('rgb(79, 57, 246)');
    fireEvent.click(within(appearance).getByRole('button', { name: 'Save Appearance' }));
    await vi.waitFor(() => expect(saves(calls)).toHaveLength(2));
    expect(saves(calls)[1].variables.input).toEqual({ appearance: { primaryColor: null } });
  });

  it('disables hiding the badge for a free owner, with the way to Pro', async () => {
    await openEmbed();
    const appearance = card('Appearance');
    const badge = within(appearance).getByLabelText('Hide Powered by Parley badge') as HTMLInputElement;
    expect(badge.disabled).toBe(true);
    expect(within(appearance).getByText('PRO')).toBeTruthy();
    expect(within(appearance).getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
  });

  it('lets a pro owner hide the badge', async () => {
    const { calls } = await openEmbed({ Me: () => ({ data: { me: proUser } }), UpdateChatbotEmbed: saveAnswer });
    const appearance = card('Appearance');
    const badge = within(appearance).getByLabelText('Hide Powered by Parley badge') as HTMLInputElement;
    expect(badge.disabled).toBe(false);
    expect(within(appearance).queryByText('PRO')).toBeNull();
    fireEvent.click(badge);
    fireEvent.click(within(appearance).getByRole('button', { name: 'Save Appearance' }));
    expect(await within(appearance).findByText('Chatbot updated successfully')).toBeTruthy();
    expect(saves(calls)[0].variables.input).toEqual({ appearance: { hideBranding: true } });
    expect(badge.checked).toBe(true);
  });

  it("shows the server's refusal when the plan it knows is not pro, keeping the choice", async () => {
    await openEmbed({
      Me: () => ({ data: { me: proUser } }),
      UpdateChatbotEmbed: () => graphqlError('Hiding the Parley badge is a Pro feature.', 'FORBIDDEN'),
    });
    const appearance = card('Appearance');
    const badge = within(appearance).getByLabelText('Hide Powered by Parley badge') as HTMLInputElement;
    fireEvent.click(badge);
    fireEvent.click(within(appearance).getByRole('button', { name: 'Save Appearance' }));
    expect((await within(appearance).findByRole('alert')).textContent).toBe('Hiding the Parley badge is a Pro feature.');
    expect(badge.checked).toBe(true);
  });

  it('saves the allowed domains (host names only) and the standalone page switch', async () => {
    const { calls } = await openEmbed({ UpdateChatbotEmbed: saveAnswer });
    const placement = card('Where it runs');
    expect(within(placement).getByText(/Empty: anywhere/)).toBeTruthy();
    const standalone = within(placement).getByRole('switch', { name: 'Standalone public page' });
    expect(standalone.getAttribute('aria-checked')).toBe('true');

    fireEvent.change(within(placement).getByLabelText('Allowed domains'), {
      target: { value: 'Shop.Example.com\n\nhttps://www.example.com/cart\nshop.example.com' },
    });
    fireEvent.click(standalone);
    fireEvent.click(within(placement).getByRole('button', { name: 'Save Domains' }));
    expect(await within(placement).findByText('Chatbot updated successfully')).toBeTruthy();
    expect(saves(calls)[0].variables).toEqual({
      id: 'c1',
      input: { allowedDomains: ['shop.example.com', 'www.example.com'], standalonePage: false },
    });
    expect((within(placement).getByLabelText('Allowed domains') as HTMLTextAreaElement).value).toBe('shop.example.com\nwww.example.com');

    // Emptied: anywhere again, sent as [].
    fireEvent.change(within(placement).getByLabelText('Allowed domains'), { target: { value: '  ' } });
    fireEvent.click(within(placement).getByRole('button', { name: 'Save Domains' }));
    await vi.waitFor(() => expect(saves(calls)).toHaveLength(2));
    expect(saves(calls)[1].variables.input).toEqual({ allowedDomains: [] });
  });

  it("shows the service's message for a host name it refuses, keeping what was typed", async () => {
    await openEmbed({ UpdateChatbotEmbed: () => graphqlError('"shop example" is not a host name', 'BAD_USER_INPUT') });
    const placement = card('Where it runs');
    fireEvent.change(within(placement).getByLabelText('Allowed domains'), { target: { value: 'shop example' } });
    fireEvent.click(within(placement).getByRole('button', { name: 'Save Domains' }));
    expect((await within(placement).findByRole('alert')).textContent).toBe('"shop example" is not a host name');
    expect((within(placement).getByLabelText('Allowed domains') as HTMLTextAreaElement).value).toBe('shop example');
  });

  it('starts from the saved limits and saves them, empty meaning no limit', async () => {
    const { calls } = await openEmbed(
      { UpdateChatbotEmbed: saveAnswer },
      { limits: { visitorMessagesPerDay: 100, dailySpendLimit: '5.00' } },
    );
    const limits = card('Visitor limits');
    const perDay = within(limits).getByLabelText('Messages per visitor per day') as HTMLInputElement;
    const spend = within(limits).getByLabelText('Daily spend limit') as HTMLInputElement;
    expect(perDay.value).toBe('100');
    expect(spend.value).toBe('5.00');

    fireEvent.change(perDay, { target: { value: '' } });
    fireEvent.change(spend, { target: { value: '0.50' } });
    fireEvent.click(within(limits).getByLabelText('Ask new visitors for an invisible proof-of-work check'));
    fireEvent.click(within(limits).getByRole('button', { name: 'Save Limits' }));
    expect(await within(limits).findByText('Chatbot updated successfully')).toBeTruthy();
    expect(saves(calls)[0].variables).toEqual({
      id: 'c1',
      input: { limits: { visitorMessagesPerDay: null, dailySpendLimit: '0.50', proofOfWork: true } },
    });
    expect(perDay.value).toBe('');
    expect(perDay.placeholder).toBe('No limit');

    fireEvent.change(perDay, { target: { value: '2' } });
    fireEvent.change(spend, { target: { value: '' } });
    fireEvent.click(within(limits).getByRole('button', { name: 'Save Limits' }));
    await vi.waitFor(() => expect(saves(calls)).toHaveLength(2));
    expect(saves(calls)[1].variables.input).toEqual({ limits: { visitorMessagesPerDay: 2, dailySpendLimit: null } });
  });

  it('refuses a count that is not whole before sending, and shows the service refusing a range', async () => {
    const { calls } = await openEmbed({
      UpdateChatbotEmbed: () => graphqlError('The daily spend limit must be between 0.01 and 10000.00 dollars', 'BAD_USER_INPUT'),
    });
    const limits = card('Visitor limits');
    fireEvent.change(within(limits).getByLabelText('Messages per visitor per day'), { target: { value: '2.5' } });
    fireEvent.click(within(limits).getByRole('button', { name: 'Save Limits' }));
    expect((await within(limits).findByRole('alert')).textContent).toBe(VISITOR_MESSAGES_NOT_WHOLE_MESSAGE);
    expect(saves(calls)).toHaveLength(0);

    fireEvent.change(within(limits).getByLabelText('Messages per visitor per day'), { target: { value: '100' } });
    fireEvent.change(within(limits).getByLabelText('Daily spend limit'), { target: { value: '0.001' } });
    fireEvent.click(within(limits).getByRole('button', { name: 'Save Limits' }));
    expect((await within(limits).findByRole('alert')).textContent).toBe('The daily spend limit must be between 0.01 and 10000.00 dollars');
    expect(saves(calls)[0].variables.input).toEqual({ limits: { dailySpendLimit: '0.001' } });
  });

  it('makes the identity secret, shows it once with the server code, then offers a roll', async () => {
    let enabled = false;
    const SECRET = 'ab'.repeat(32);
    const { calls } = await openEmbed({
      IdentityVerification: () => ({
        data: {
          identityVerification: { __typename: 'IdentityVerification', enabled, createdAt: enabled ? '2026-12-02T06:00:00.000Z' : null },
        },
      }),
      CreateIdentitySecret: () => {
        enabled = true;
        return { data: { createIdentitySecret: { __typename: 'IdentitySecret', secret: SECRET, createdAt: '2026-12-02T06:00:00.000Z' } } };
      },
    });
    const identity = card('Identity verification');
    expect(await within(identity).findByText('Off')).toBeTruthy();
    expect(within(identity).getByLabelText('Identity code sample').textContent).toContain("createHmac('sha256'");
    expect(within(identity).queryByLabelText('Identity secret')).toBeNull();
    fireEvent.click(within(identity).getByRole('button', { name: 'Create secret' }));
    expect((await within(identity).findByLabelText('Identity secret')).textContent).toBe(SECRET);
    expect(await within(identity).findByText(/^On since /)).toBeTruthy();
    expect(within(identity).getByRole('button', { name: 'Roll secret' })).toBeTruthy();
    expect(calls.filter((c) => c.operationName === 'CreateIdentitySecret').map((c) => c.variables)).toEqual([{ chatbotId: 'c1' }]);
  });
});
