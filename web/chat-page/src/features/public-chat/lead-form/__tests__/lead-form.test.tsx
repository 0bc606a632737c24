// The inline lead form of the chat page (docs/product.md, Leads): when it shows, Skip, the consent
// box, the server's refusals inline, the session the server starts, the identify pre-fill.
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PublicChatPage } from '../../components/public-chat-page';
import { bodyOf, chatbot, field, json, mockApi, openChat, pressEnter, type } from '../../__tests__/public-chat-fixtures';
import { submitEmailLead } from '../lead-api';
import { leadFormDue, readLeadForm } from '../lead-form-config';

const withForm = (leadForm: Record<string, unknown>) => () => json({ ...chatbot, leadForm });

async function ask(text: string) {
  type(text);
  pressEnter();
  await screen.findByText(text);
}

function form() {
  return within(screen.getByRole('form', { name: 'Leave your details and we will get back to you.' }));
}

describe('the lead form in the chat', () => {
  beforeEach(() => {
    localStorage.clear();
    localStorage.setItem('chatSessionId_acme', 'local-session1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('shows before the first message, holds the chat while a field is required, and wants the consent box', async () => {
    const { posts } = mockApi(
      [
        json({ message: 'Please tick the box to agree.' }, 400),
        json({ leadId: 'lead-1', sessionId: 'server-session' }, 201),
        json({ message: 'We open at nine.', sessionId: 'server-session' }),
      ],
      withForm({
        name: 'optional',
        email: 'required',
        phone: 'off',
        trigger: 'before_first_message',
        consentText: 'I agree to be contacted.',
      }),
    );
    await openChat();
    expect(form().getByLabelText('Name (optional)')).toBeTruthy();
    expect(form().queryByLabelText('Phone')).toBeNull();
    expect(form().queryByRole('button', { name: 'Skip' })).toBeNull();
    expect(field().disabled).toBe(true);

    fireEvent.input(form().getByLabelText('Email'), { target: { value: 'ada@example.com' } });
    fireEvent.click(form().getByRole('button', { name: 'Send' }));
    expect((await form().findByRole('alert')).textContent).toBe('Please tick the box to agree.');

    fireEvent.click(form().getByLabelText('I agree to be contacted.'));
    fireEvent.click(form().getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Thanks! Your details were sent.')).toBeTruthy();
    expect(posts()[1].url).toBe('/api/chatbot/public/acme/lead');
    expect(bodyOf(posts()[1])).toEqual({ sessionId: 'local-session1', email: 'ada@example.com', consent: true, source: 'form' });
    expect(field().disabled).toBe(false);

    // The conversation the lead started is the one the next message continues.
    await ask('When do you open?');
    await screen.findByText('We open at nine.');
    expect(bodyOf(posts()[2]).sessionId).toBe('server-session');
    expect(localStorage.getItem('chatSessionId_acme')).toBe('server-session');
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
  });

  it('shows after the visitor’s second message; Skip hides it for the session, also after a reload', async () => {
    mockApi(
      [json({ message: 'One.', sessionId: 'local-session1' }), json({ message: 'Two.', sessionId: 'local-session1' })],
      withForm({ name: 'optional', email: 'optional', phone: 'optional', trigger: 'after_messages', afterMessages: 2 }),
    );
    const view = await openChat();
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
    await ask('first');
    await screen.findByText('One.');
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
    await ask('second');
    await screen.findByText('Two.');
    expect(form().getByLabelText('Phone (optional)')).toBeTruthy();
    expect(field().disabled).toBe(false);

    fireEvent.click(form().getByRole('button', { name: 'Skip' }));
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
    view.unmount();
    await openChat();
    await screen.findByText('Two.');
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
  });

  it('shows when an answer comes back unanswered, and shows the server’s refusal inline', async () => {
    mockApi(
      [
        json({ message: 'I do not know.', sessionId: 'local-session1', unanswered: true }),
        json({ message: 'Please enter a valid email address.' }, 400),
      ],
      withForm({ name: 'off', email: 'optional', phone: 'off', trigger: 'when_unanswered' }),
    );
    await openChat();
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
    await ask('Do you sell boats?');
    await screen.findByText('I do not know.');
    fireEvent.input(form().getByLabelText('Email (optional)'), { target: { value: 'not-an-address' } });
    fireEvent.click(form().getByRole('button', { name: 'Send' }));
    expect((await form().findByRole('alert')).textContent).toBe('Please enter a valid email address.');
    expect((form().getByLabelText('Email (optional)') as HTMLInputElement).value).toBe('not-an-address');
  });

  it('shows when the bot asks for the visitor’s details (showLeadForm), whatever its trigger', async () => {
    mockApi(
      [
        json({ message: 'We ship in two days.', sessionId: 'local-session1', unanswered: false }),
        json({ message: 'Leave your email and we will send a quote.', sessionId: 'local-session1', showLeadForm: true }),
      ],
      withForm({ name: 'off', email: 'required', phone: 'off', trigger: 'after_messages', afterMessages: 10 }),
    );
    await openChat();
    await ask('When do you ship?');
    await screen.findByText('We ship in two days.');
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
    await ask('Can you send me a quote?');
    await screen.findByText('Leave your email and we will send a quote.');
    expect(form().getByLabelText('Email')).toBeTruthy();
  });

  it("is pre-filled with the name and email the host page told (Parley.identify), and sends them with the visitor's id", async () => {
    const frame = document.createElement('iframe');
    document.body.append(frame);
    const parent = frame.contentWindow as Window;
    vi.spyOn(parent, 'postMessage').mockImplementation(() => undefined);
    vi.spyOn(window, 'parent', 'get').mockReturnValue(parent as Window & typeof globalThis);
    const { posts } = mockApi(
      [json({ leadId: 'lead-1', sessionId: 'local-session1' }, 201)],
      withForm({ name: 'required', email: 'required', phone: 'off', trigger: 'before_first_message' }),
    );
    render(<PublicChatPage uniqueId="acme" embedded reload={vi.fn()} />);
    await screen.findByRole('heading', { level: 1 });
    act(() => {
      window.dispatchEvent(
        new MessageEvent('message', {
          data: { type: 'parley:identify', visitor: { id: 'u-42', name: 'Ada', email: 'ada@example.com' } },
          source: parent,
          origin: 'https://shop.example',
        }),
      );
    });
    await waitFor(() => expect((form().getByLabelText('Email') as HTMLInputElement).value).toBe('ada@example.com'));
    expect((form().getByLabelText('Name') as HTMLInputElement).value).toBe('Ada');
    fireEvent.click(form().getByRole('button', { name: 'Send' }));
    await screen.findByText('Thanks! Your details were sent.');
    expect(bodyOf(posts()[0])).toEqual({
      sessionId: 'local-session1',
      name: 'Ada',
      email: 'ada@example.com',
      consent: false,
      source: 'form',
      visitor: { id: 'u-42', name: 'Ada' },
    });
    expect((posts()[0].init.headers as Record<string, string>)['x-parley-embed']).toBe('1');
  });

  it('is not shown when the chatbot asks for nothing', async () => {
    mockApi([], withForm({ name: 'off', email: 'off', phone: 'off', trigger: 'before_first_message' }));
    await openChat();
    expect(screen.queryByRole('form', { name: /Leave your details/ })).toBeNull();
    expect(field().disabled).toBe(false);
  });
});

describe('the email left after a handoff nobody answered', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is a lead of source handoff_timeout', async () => {
    const { posts } = mockApi([json({ leadId: 'lead-2', sessionId: 's1' }, 201)]);
    expect(await submitEmailLead({ uniqueId: 'acme', sessionId: 's1', email: 'ada@example.com' })).toEqual({
      leadId: 'lead-2',
      sessionId: 's1',
    });
    expect(bodyOf(posts()[0])).toEqual({ sessionId: 's1', email: 'ada@example.com', source: 'handoff_timeout' });
  });
});

describe('lead form rules', () => {
  it('reads the form, null when it asks for nothing', () => {
    expect(readLeadForm({ name: 'off', email: 'off', phone: 'off' })).toBeNull();
    expect(readLeadForm(undefined)).toBeNull();
    expect(readLeadForm({ email: 'required', trigger: 'nonsense', afterMessages: 'x' })).toEqual({
      name: 'off',
      email: 'required',
      phone: 'off',
      trigger: 'before_first_message',
      afterMessages: 2,
      consentText: '',
    });
  });

  it('is due by its trigger, never while a reply is on its way', () => {
    const form = readLeadForm({ email: 'optional', trigger: 'after_messages', afterMessages: 3 })!;
    const progress = { visitorMessages: 3, lastUnanswered: false, pending: false };
    expect(leadFormDue(form, progress)).toBe(true);
    expect(leadFormDue(form, { ...progress, visitorMessages: 2 })).toBe(false);
    expect(leadFormDue(form, { ...progress, pending: true })).toBe(false);
    expect(leadFormDue({ ...form, trigger: 'when_unanswered' }, progress)).toBe(false);
    expect(leadFormDue({ ...form, trigger: 'when_unanswered' }, { ...progress, lastUnanswered: true })).toBe(true);
  });
});
