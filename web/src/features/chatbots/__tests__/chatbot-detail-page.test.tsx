import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError } from '../../../test/mock-link';
import { knowledgeBaseOf as sampleKnowledgeBase, openDetail } from './detail-page-fixtures';

describe('Chatbot detail page', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('shows the profile card, the settings form with saved values and a locked History tab', async () => {
    openDetail();
    expect(await screen.findByRole('heading', { level: 1, name: 'support bot' })).toBeTruthy();
    expect(screen.getByRole('link', { name: /Back to Dashboard/ }).getAttribute('href')).toBe('/dashboard');
    expect((screen.getByLabelText('Chatbot Name') as HTMLInputElement).value).toBe('support bot');
    const language = screen.getByLabelText('Primary Language') as HTMLSelectElement;
    expect(language.value).toBe('english');
    expect([...language.options].map((o) => [o.value, o.text])).toEqual([
      ['english', 'English'],
      ['french', 'French'],
      ['chinese', 'Chinese'],
    ]);
    expect(screen.getByRole('switch', { name: 'Active' }).getAttribute('aria-checked')).toBe('true');
    expect(screen.getByRole('tab', { name: 'Settings' }).getAttribute('aria-selected')).toBe('true');
    const history = screen.getByRole('tab', { name: /History/ });
    expect(history.hasAttribute('disabled')).toBe(true);
    expect(within(history).getByText('PRO')).toBeTruthy();
    expect(screen.getByText('Created')).toBeTruthy();
    expect(screen.getByText('Last Updated')).toBeTruthy();
    expect(screen.getByText('Total Cost')).toBeTruthy();
    expect(screen.getByText('No knowledge base entries yet.')).toBeTruthy();
    expect(screen.getByText('No text knowledge added yet.')).toBeTruthy();
    const file = document.querySelector('input[type=file]');
    expect(file?.getAttribute('accept')).toBe('image/jpeg,image/png,image/gif');
    expect(screen.getByRole('heading', { name: 'Bot voice' })).toBeTruthy();
    expect(screen.getByRole('link', { name: /Open Chat/ }).getAttribute('href')).toBe('/chat/pub-c1');
  });

  it('gives the Settings tab a navigation of its sections, each with its own address, every control kept in place', async () => {
    const { router } = openDetail();
    await screen.findByRole('heading', { level: 1, name: 'support bot' });
    // A column beside the sections on a desktop and a row above them on a phone: the same links.
    const navs = screen.getAllByRole('navigation', { name: 'Settings sections' });
    expect(navs).toHaveLength(2);
    for (const nav of navs) {
      expect(
        within(nav)
          .getAllByRole('link')
          .map((link) => [link.textContent, link.getAttribute('href')]),
      ).toEqual([
        ['Basics', '#settings-basic'],
        ['Voice', '#settings-voice'],
        ['Model', '#settings-model'],
        ['Lead form', '#settings-lead-form'],
        ['Handoff', '#settings-handoff'],
        ['Privacy', '#settings-privacy'],
        ['Channels', '#settings-channels'],
        ['Actions', '#settings-actions'],
        ['Tools', '#settings-tools'],
        ['Knowledge', '#settings-knowledge'],
        ['Entries', '#settings-entries'],
        ['Tests', '#settings-tests'],
      ]);
    }
    expect(within(navs[0]).getByRole('link', { name: 'Basics' }).getAttribute('aria-current')).toBe('true');
    const voice = screen.getByRole('region', { name: 'Voice' });
    expect(within(voice).getByRole('heading', { name: 'Bot voice' })).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Basics' })).getByLabelText('Chatbot Name')).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Entries' })).getByText('No knowledge base entries yet.')).toBeTruthy();

    fireEvent.click(within(navs[1]).getByRole('link', { name: 'Voice' }));
    await waitFor(() => expect(router.state.location.hash).toBe('#settings-voice'));
    expect(document.activeElement).toBe(voice);
    for (const nav of navs) expect(within(nav).getByRole('link', { name: 'Voice' }).getAttribute('aria-current')).toBe('true');
    expect(within(navs[0]).getByRole('link', { name: 'Basics' }).getAttribute('aria-current')).toBeNull();

    // Another tab has no section navigation.
    fireEvent.click(screen.getByRole('tab', { name: 'Embed' }));
    await waitFor(() => expect(screen.queryAllByRole('navigation', { name: 'Settings sections' })).toHaveLength(0));
  });

  it('names the browser tab after the open tab and the chatbot', async () => {
    document.title = '';
    openDetail();
    const embed = await screen.findByRole('tab', { name: 'Embed' });
    expect(document.title).toBe('Settings · support bot — Parley');
    fireEvent.click(embed);
    await waitFor(() => expect(document.title).toBe('Embed · support bot — Parley'));
    fireEvent.click(screen.getByRole('tab', { name: 'Analytics' }));
    await waitFor(() => expect(document.title).toBe('Analytics · support bot — Parley'));
  });

  it("shows Total Cost as this calendar month's cost for this chatbot, to 5 decimals", async () => {
    const now = new Date(2025, 1, 10, 9, 30);
    vi.useFakeTimers({ now, toFake: ['Date'] });
    const { calls } = openDetail();
    const row = (await screen.findByText('Total Cost')).parentElement as HTMLElement;
    await waitFor(() => expect(within(row).getByText('$0.01235')).toBeTruthy());
    expect(within(row).getByText('This month')).toBeTruthy();
    expect(calls.filter((c) => c.operationName === 'ChatbotMonthlyCost').map((c) => c.variables)).toEqual([
      {
        chatbotId: 'c1',
        startDate: new Date(2025, 1, 1, 0, 0, 0, 0).toISOString(),
        endDate: new Date(2025, 1, 28, 23, 59, 59, 999).toISOString(),
      },
    ]);
  });

  it('shows "—" for Total Cost when the cost cannot be loaded (only logged)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    openDetail(undefined, { ChatbotMonthlyCost: () => graphqlError('Billing is unavailable', 'UNAVAILABLE') });
    const row = (await screen.findByText('Total Cost')).parentElement as HTMLElement;
    await waitFor(() => expect(logged).toHaveBeenCalledWith('Failed to load the chatbot cost', 'Billing is unavailable'));
    expect(within(row).getByText('—')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows "Chatbot not found" for an unknown or foreign chatbot', async () => {
    openDetail(undefined, { Chatbot: () => graphqlError('Chatbot not found', 'NOT_FOUND') });
    expect((await screen.findByRole('alert')).textContent).toBe('Chatbot not found');
  });

  it('saves Basic Settings and the success banner disappears after 3000 ms', async () => {
    const { calls } = openDetail(undefined, {
      UpdateChatbot: ({ variables }) => ({
        data: { updateChatbot: sampleChatbot({ ...(variables.input as object), updatedAt: '2025-05-01T00:00:00.000Z' }) },
      }),
    });
    fireEvent.change(await screen.findByLabelText('Chatbot Name'), { target: { value: ' Helper ' } });
    fireEvent.change(screen.getByLabelText('Primary Language'), { target: { value: 'french' } });
    fireEvent.click(screen.getByRole('switch', { name: 'Active' }));
    expect(screen.getByRole('switch', { name: 'Active' }).getAttribute('aria-checked')).toBe('false');

    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Chatbot updated successfully')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'UpdateChatbot')?.variables).toEqual({
      id: 'c1',
      input: { name: 'Helper', language: 'french', isActive: false },
    });
    // The cache took the answer: the page title and status follow without a refetch.
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Helper');
    expect(screen.getByText('Inactive')).toBeTruthy();

    await act(() => vi.advanceTimersByTimeAsync(2900));
    expect(screen.getByText('Chatbot updated successfully')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(screen.queryByText('Chatbot updated successfully')).toBeNull();
  });

  it("shows the server's update error, else the default", async () => {
    openDetail(undefined, {
      UpdateChatbot: () => {
        throw new Error('Failed to fetch');
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Save Changes' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to update chatbot');
  });

  it('keeps Add Text disabled and ignores submits while the text is blank', async () => {
    const { calls } = openDetail();
    const add = await screen.findByRole('button', { name: 'Add Text' });
    const textarea = screen.getByLabelText('Text Content') as HTMLTextAreaElement;
    expect(textarea.rows).toBe(6);
    expect(add.hasAttribute('disabled')).toBe(true);
    fireEvent.change(textarea, { target: { value: '   \n ' } });
    expect(add.hasAttribute('disabled')).toBe(true);
    fireEvent.submit(textarea.closest('form') as HTMLFormElement);
    expect(calls.some((c) => c.operationName === 'AddTextEntry')).toBe(false);
    fireEvent.change(textarea, { target: { value: 'We open at 9.' } });
    expect(add.hasAttribute('disabled')).toBe(false);
  });

  it('adds text: clears the textarea, shows the banner and the new entry and preview', async () => {
    const { calls } = openDetail(undefined, {
      AddTextEntry: () => ({
        data: { addTextEntry: sampleKnowledgeBase([{ id: 'k1', content: 'We open at 9 every weekday.' }]) },
      }),
    });
    const textarea = (await screen.findByLabelText('Text Content')) as HTMLTextAreaElement;
    fireEvent.change(textarea, { target: { value: 'We open at 9 every weekday.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add Text' }));
    expect(await screen.findByText('Text added to knowledge base successfully')).toBeTruthy();
    expect(textarea.value).toBe('');
    expect(calls.find((c) => c.operationName === 'AddTextEntry')?.variables).toEqual({
      chatbotId: 'c1',
      text: 'We open at 9 every weekday.',
    });
    expect(screen.getByRole('heading', { name: 'We open at 9 every' })).toBeTruthy();
    expect(screen.queryByText('No knowledge base entries yet.')).toBeNull();
    expect(screen.queryByText('No text knowledge added yet.')).toBeNull();
  });

  it('shows the add-text error and keeps the text', async () => {
    openDetail(undefined, { AddTextEntry: () => graphqlError('Text is too long', 'BAD_USER_INPUT') });
    const textarea = (await screen.findByLabelText('Text Content')) as HTMLTextAreaElement;
    fireEvent.change(textarea, { target: { value: 'hello' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add Text' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Text is too long');
    expect(textarea.value).toBe('hello');
  });

  it('deletes a text entry after confirmation', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    const kb = sampleKnowledgeBase([
      { id: 'k1', content: 'First fact here.' },
      { id: 'k2', content: 'Second fact here.' },
    ]);
    const { calls } = openDetail(kb, {
      DeleteTextEntry: () => ({ data: { deleteTextEntry: sampleKnowledgeBase([{ id: 'k2', content: 'Second fact here.' }]) } }),
    });
    const entry = (await screen.findByRole('heading', { name: 'First fact here.' })).closest('li') as HTMLElement;
    fireEvent.click(within(entry).getByRole('button', { name: 'Delete' }));
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to delete this knowledge base entry? This action cannot be undone.');
    expect(await screen.findByText('Text entry deleted successfully')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'First fact here.' })).toBeNull();
    expect(calls.find((c) => c.operationName === 'DeleteTextEntry')?.variables).toEqual({ chatbotId: 'c1', entryId: 'k1' });
  });

  it('falls back to "Failed to delete text entry"', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    openDetail(sampleKnowledgeBase([{ id: 'k1', content: 'Fact.' }]), {
      DeleteTextEntry: () => {
        throw new Error('Failed to fetch');
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to delete text entry');
  });

  it('previews a picked picture, then uploads it over REST with the token', async () => {
    const createObjectURL = vi.fn(() => 'blob:preview');
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ profilePicture: '/media/chatbots/new.png' }), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    openDetail();

    const save = await screen.findByRole('button', { name: 'Save Picture' });
    expect(save.hasAttribute('disabled')).toBe(true);
    const picture = new File(['png'], 'bot.png', { type: 'image/png' });
    fireEvent.change(document.querySelector('input[type=file]') as HTMLInputElement, { target: { files: [picture] } });
    expect((await screen.findByRole('img', { name: 'New profile picture preview' })).getAttribute('src')).toBe('blob:preview');

    fireEvent.click(save);
    expect(await screen.findByText('Profile picture updated successfully')).toBeTruthy();
    // The page's other cards read over REST too (the Slack card asks whether "Add to Slack" is offered): the upload is its own call.
    const uploads = (fetchMock.mock.calls as unknown as [string, RequestInit][]).filter(([url]) => url.endsWith('/profile-picture'));
    expect(uploads).toHaveLength(1);
    const [url, init] = uploads[0];
    expect(url).toBe('/api/chatbot/c1/profile-picture');
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer good');
    expect((init.body as FormData).get('profilePicture')).toBe(picture);
    expect(screen.getByRole('img', { name: 'support bot profile picture' }).getAttribute('src')).toBe('/media/chatbots/new.png');
    await waitFor(() => expect(revokeObjectURL).toHaveBeenCalledWith('blob:preview'));
    vi.unstubAllGlobals();
  });

  it("shows the server's upload error, else the default", async () => {
    Object.assign(URL, { createObjectURL: () => 'blob:x', revokeObjectURL: () => undefined });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ message: 'Profile picture must be at most 2 MB' }), { status: 400 })),
    );
    openDetail();
    const input =
      (await screen.findByRole('button', { name: 'Save Picture' })) && (document.querySelector('input[type=file]') as HTMLInputElement);
    fireEvent.change(input, { target: { files: [new File(['x'], 'big.png', { type: 'image/png' })] } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Picture' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Profile picture must be at most 2 MB');

    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('<html>', { status: 502 })),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Save Picture' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Failed to upload profile picture'));
    vi.unstubAllGlobals();
  });
});
