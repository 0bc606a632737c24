import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { mockLink } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

describe('Chatbot card: open unanswered questions', () => {
  it('shows the counter only when groups are open', async () => {
    localStorage.setItem('token', 'good');
    const chatbots = [
      sampleChatbot({ id: 'c1', name: 'support bot', openUnansweredQuestions: 3 }),
      sampleChatbot({ id: 'c2', uniqueId: 'pub-c2', name: 'Sales', openUnansweredQuestions: 0 }),
    ];
    renderApp('/chatbots', mockLink({ Me: () => ({ data: { me: proUser } }), Chatbots: () => ({ data: { chatbots } }) }).link);
    const first = (await screen.findByRole('link', { name: 'support bot' })).closest('article') as HTMLElement;
    expect(within(first).getByText('3 open unanswered questions')).toBeTruthy();
    expect(within(first).getByText('3 unanswered')).toBeTruthy();
    const second = screen.getByRole('link', { name: 'Sales' }).closest('article') as HTMLElement;
    expect(within(second).queryByText(/unanswered/)).toBeNull();
  });
});
