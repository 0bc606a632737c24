import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, type Handler } from '../../../test/mock-link';
import { TOO_MANY_PATTERNS } from '../components/privacy-settings-card';
import { detailChatbot, openDetail } from './detail-page-fixtures';

// The answer of UpdateChatbotPrivacy as the gateway gives it: the saved chatbot with the input merged in.
const saveAnswer: Handler = ({ variables }) => {
  const { privacy } = variables.input as { privacy?: Record<string, unknown> };
  return { data: { updateChatbot: detailChatbot({ privacy, updatedAt: '2025-05-01T00:00:00.000Z' }) } };
};

const privacyCard = () => within(screen.getByRole('heading', { name: 'Privacy' }).closest('.rounded-2xl') as HTMLElement);
const saves = (calls: ReturnType<typeof openDetail>['calls']) => calls.filter((c) => c.operationName === 'UpdateChatbotPrivacy');

describe('Privacy settings', () => {
  it('turns redaction on and saves the patterns, one a line, blank lines dropped', async () => {
    const { calls } = openDetail(undefined, { UpdateChatbotPrivacy: saveAnswer });
    await screen.findByRole('heading', { name: 'Privacy' });
    const card = privacyCard();
    const patterns = card.getByLabelText('Your own patterns') as HTMLTextAreaElement;
    expect(patterns.disabled).toBe(true);
    fireEvent.click(card.getByRole('switch', { name: /Hide personal data from the model/ }));
    expect(patterns.disabled).toBe(false);
    fireEvent.change(patterns, { target: { value: 'CUST-\\d{6}\n\n  ORD-[A-Z]{3}  ' } });
    fireEvent.click(card.getByRole('button', { name: 'Save Privacy' }));

    expect(await card.findByText('Chatbot updated successfully')).toBeTruthy();
    expect(saves(calls)[0].variables).toEqual({
      id: 'c1',
      input: { privacy: { redactPersonalData: true, keepOriginal: false, patterns: ['CUST-\\d{6}', 'ORD-[A-Z]{3}'] } },
    });
    expect(patterns.value).toBe('CUST-\\d{6}\nORD-[A-Z]{3}');
  });

  it("shows the service's refusal of a pattern, and refuses more than 10 before asking", async () => {
    const { calls } = openDetail(undefined, {
      UpdateChatbotPrivacy: () => graphqlError('A pattern must not repeat a repetition (such as (a+)+).', 'BAD_USER_INPUT'),
    });
    await screen.findByRole('heading', { name: 'Privacy' });
    const card = privacyCard();
    fireEvent.click(card.getByRole('switch', { name: /Hide personal data from the model/ }));
    fireEvent.change(card.getByLabelText('Your own patterns'), { target: { value: '(a+)+' } });
    fireEvent.click(card.getByRole('button', { name: 'Save Privacy' }));
    expect(await card.findByText(/must not repeat a repetition/)).toBeTruthy();

    fireEvent.change(card.getByLabelText('Your own patterns'), {
      target: { value: Array.from({ length: 11 }, (_, i) => `P${i}`).join('\n') },
    });
    fireEvent.click(card.getByRole('button', { name: 'Save Privacy' }));
    expect(await card.findByText(TOO_MANY_PATTERNS)).toBeTruthy();
    expect(saves(calls)).toHaveLength(1);
  });
});
