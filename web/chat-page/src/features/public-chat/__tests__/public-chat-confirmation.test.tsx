// An action the chatbot may run only with the visitor's Confirm: the answer carries a card, the
// visitor's Confirm or Cancel names the stored call, the card is kept with the conversation (a
// reload shows it again, the same call) and goes once decided.
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bodyOf, field, json, mockApi, openChat, pressEnter, type } from './public-chat-fixtures';

const CARD = { callId: '0b6f3f6e-2a43-4c59-9d0e-5a7f1d3c9b21', actionName: 'cancel_order', question: 'Cancel order (order id: 1042)?' };
const asking = () => json({ message: CARD.question, sessionId: 'local-session1', messageId: 'm-1', confirmation: CARD });

const card = () => screen.queryByRole('group', { name: 'Confirm this action' });

describe('public chat page: confirming an action', () => {
  beforeEach(() => {
    localStorage.setItem('chatSessionId_acme', 'local-session1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('shows the card, and Confirm sends the stored call’s id; the answer follows and the card goes', async () => {
    const api = mockApi([asking(), json({ message: 'Order 1042 is cancelled.', sessionId: 'local-session1', messageId: 'm-2' })]);
    await openChat();
    type('Cancel my order #1042');
    pressEnter();
    await waitFor(() => expect(card()).not.toBeNull());
    expect(screen.getByText(CARD.question)).not.toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await screen.findByText('Order 1042 is cancelled.');
    expect(bodyOf(api.posts()[1])).toMatchObject({ message: 'Confirm', confirm: { callId: CARD.callId, decision: 'confirm' } });
    expect(card()).toBeNull();
    await waitFor(() => expect(field().disabled).toBe(false));
  });

  it('Cancel sends the decline; a reload shows an undecided card again, with the same call', async () => {
    const api = mockApi([asking()]);
    await openChat();
    type('Cancel my order #1042');
    pressEnter();
    await waitFor(() => expect(card()).not.toBeNull());
    cleanup();

    const again = mockApi([json({ message: 'All right, I left it.', sessionId: 'local-session1', messageId: 'm-2' })]);
    await openChat();
    expect(screen.getByText(CARD.question)).not.toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await screen.findByText('All right, I left it.');
    expect(bodyOf(again.posts()[0])).toMatchObject({ message: 'Cancel', confirm: { callId: CARD.callId, decision: 'cancel' } });
    expect(card()).toBeNull();
    expect(api.posts()).toHaveLength(1);
  });
});
