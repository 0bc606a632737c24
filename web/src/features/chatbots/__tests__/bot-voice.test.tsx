import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { graphqlError } from '../../../test/mock-link';
import { detailChatbot, openDetail } from './detail-page-fixtures';

function voiceCard() {
  return screen.getByRole('heading', { name: 'Bot voice' }).closest('.rounded-2xl') as HTMLElement;
}

describe('Bot voice card', () => {
  afterEach(() => vi.restoreAllMocks());

  it('starts from the saved voice and saves every field', async () => {
    const { calls } = openDetail(
      undefined,
      {
        UpdateChatbotVoice: ({ variables }) => ({
          data: { updateChatbot: detailChatbot({ ...(variables.input as object), updatedAt: '2025-05-01T00:00:00.000Z' }) },
        }),
      },
      { instructions: 'Be brief.', temperature: 0.3, suggestedQuestions: ['What does it cost?'] },
    );
    await screen.findByRole('heading', { name: 'Bot voice' });
    const card = voiceCard();
    const instructions = within(card).getByLabelText('Instructions') as HTMLTextAreaElement;
    expect(instructions.value).toBe('Be brief.');
    expect(within(card).getByText('9 / 4,000')).toBeTruthy();
    expect(within(card).getByText(/visitors cannot override/)).toBeTruthy();
    const temperature = within(card).getByLabelText('Temperature') as HTMLInputElement;
    expect(temperature.value).toBe('0.3');
    expect([temperature.min, temperature.max, temperature.step]).toEqual(['0', '1.5', '0.1']);

    fireEvent.change(instructions, { target: { value: 'Answer warmly.' } });
    fireEvent.change(temperature, { target: { value: '0.9' } });
    expect(within(card).getByText('0.9')).toBeTruthy();
    fireEvent.change(within(card).getByLabelText('Welcome message'), { target: { value: 'Hi there!' } });
    fireEvent.click(within(card).getByRole('button', { name: /Add question/ }));
    fireEvent.change(within(card).getByLabelText('Suggested question 2'), { target: { value: '  Do you ship abroad?  ' } });
    fireEvent.click(within(card).getByRole('button', { name: /Add question/ }));
    fireEvent.click(within(card).getByRole('button', { name: /Add question/ }));
    expect(
      within(card)
        .getByRole('button', { name: /Add question/ })
        .hasAttribute('disabled'),
    ).toBe(true);
    fireEvent.click(within(card).getByRole('button', { name: 'Remove suggested question 1' }));
    fireEvent.change(within(card).getByLabelText('No-answer message'), { target: { value: 'Please email us.' } });
    const visitorLanguage = within(card).getByRole('switch', { name: "Answer in the visitor's language" });
    expect(visitorLanguage.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(visitorLanguage);

    fireEvent.click(within(card).getByRole('button', { name: 'Save Voice' }));
    expect(await within(card).findByText('Chatbot updated successfully')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'UpdateChatbotVoice')?.variables).toEqual({
      id: 'c1',
      input: {
        instructions: 'Answer warmly.',
        temperature: 0.9,
        welcomeMessage: 'Hi there!',
        suggestedQuestions: ['Do you ship abroad?'],
        noAnswerMessage: 'Please email us.',
        answerInVisitorLanguage: true,
      },
    });
    // The saved list comes back without the blank inputs.
    expect((within(card).getByLabelText('Suggested question 1') as HTMLInputElement).value).toBe('Do you ship abroad?');
    expect(within(card).queryByLabelText('Suggested question 2')).toBeNull();
  });

  it('resets the temperature to the default (sent as null)', async () => {
    const { calls } = openDetail(
      undefined,
      { UpdateChatbotVoice: ({ variables }) => ({ data: { updateChatbot: detailChatbot(variables.input as Record<string, unknown>) } }) },
      { temperature: 1.2 },
    );
    await screen.findByRole('heading', { name: 'Bot voice' });
    const card = voiceCard();
    fireEvent.click(within(card).getByRole('button', { name: 'Reset to default' }));
    expect(within(card).getByText('Default')).toBeTruthy();
    expect(within(card).getByRole('button', { name: 'Reset to default' }).hasAttribute('disabled')).toBe(true);
    fireEvent.click(within(card).getByRole('button', { name: 'Save Voice' }));
    expect(await within(card).findByText('Chatbot updated successfully')).toBeTruthy();
    expect(
      (calls.find((c) => c.operationName === 'UpdateChatbotVoice')?.variables.input as { temperature: unknown }).temperature,
    ).toBeNull();
  });

  it("shows the service's validation message and keeps what was typed", async () => {
    openDetail(undefined, {
      UpdateChatbotVoice: () => graphqlError('Instructions are too long (maximum 4,000 characters)', 'BAD_USER_INPUT'),
    });
    await screen.findByRole('heading', { name: 'Bot voice' });
    const card = voiceCard();
    const long = 'x'.repeat(4001);
    fireEvent.change(within(card).getByLabelText('Instructions'), { target: { value: long } });
    expect(within(card).getByText('4,001 / 4,000').className).toContain('text-red');
    fireEvent.click(within(card).getByRole('button', { name: 'Save Voice' }));
    expect((await within(card).findByRole('alert')).textContent).toBe('Instructions are too long (maximum 4,000 characters)');
    expect((within(card).getByLabelText('Instructions') as HTMLTextAreaElement).value).toBe(long);
  });
});
