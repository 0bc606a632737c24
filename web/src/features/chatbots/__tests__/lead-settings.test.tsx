import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, type Handler } from '../../../test/mock-link';
import { formIsOn, handoffInput, handoffSettings, leadFormInput, leadFormSettings } from '../lead-settings';
import { detailChatbot, openDetail } from './detail-page-fixtures';

// The answer of UpdateChatbotLeadSettings as the gateway gives it: the saved chatbot with the input merged in.
const saveAnswer: Handler = ({ variables }) => {
  const { leadForm, handoff } = variables.input as { leadForm?: Record<string, unknown>; handoff?: Record<string, unknown> };
  return { data: { updateChatbot: detailChatbot({ leadForm, handoff, updatedAt: '2025-05-01T00:00:00.000Z' }) } };
};

function card(title: string) {
  return within(screen.getByRole('heading', { name: new RegExp(`^${title}`) }).closest('.rounded-2xl') as HTMLElement);
}

const saves = (calls: ReturnType<typeof openDetail>['calls']) => calls.filter((c) => c.operationName === 'UpdateChatbotLeadSettings');

describe('Lead form settings', () => {
  it("shows the chatbot's form and saves the fields, the trigger, the number of messages and the consent line", async () => {
    const { calls } = openDetail(undefined, { UpdateChatbotLeadSettings: saveAnswer });
    await screen.findByRole('heading', { name: 'Lead form' });
    const lead = card('Lead form');
    expect((lead.getByLabelText('Ask for email') as HTMLSelectElement).value).toBe('off');
    expect(lead.getByText('Every field is off: the chat shows no form.')).toBeTruthy();
    expect((lead.getByLabelText('Show the form') as HTMLSelectElement).disabled).toBe(true);

    fireEvent.change(lead.getByLabelText('Ask for email'), { target: { value: 'required' } });
    fireEvent.change(lead.getByLabelText('Ask for name'), { target: { value: 'optional' } });
    fireEvent.change(lead.getByLabelText('Show the form'), { target: { value: 'after_messages' } });
    fireEvent.change(lead.getByLabelText('After how many messages'), { target: { value: '3' } });
    fireEvent.change(lead.getByLabelText('Consent line'), { target: { value: '  I agree to be contacted.  ' } });
    fireEvent.click(lead.getByRole('button', { name: 'Save Lead Form' }));

    expect(await lead.findByText('Chatbot updated successfully')).toBeTruthy();
    expect(saves(calls)[0].variables).toEqual({
      id: 'c1',
      input: {
        leadForm: {
          name: 'optional',
          email: 'required',
          phone: 'off',
          trigger: 'after_messages',
          afterMessages: 3,
          consentText: 'I agree to be contacted.',
        },
      },
    });
    expect((lead.getByLabelText('Consent line') as HTMLInputElement).value).toBe('I agree to be contacted.');
  });

  it("shows the service's refusal", async () => {
    openDetail(undefined, {
      UpdateChatbotLeadSettings: () => graphqlError('The lead form shows after 1 to 50 messages.', 'BAD_USER_INPUT'),
    });
    await screen.findByRole('heading', { name: 'Lead form' });
    const lead = card('Lead form');
    fireEvent.change(lead.getByLabelText('Ask for phone'), { target: { value: 'optional' } });
    fireEvent.click(lead.getByRole('button', { name: 'Save Lead Form' }));
    expect((await lead.findByRole('alert')).textContent).toBe('The lead form shows after 1 to 50 messages.');
  });
});

describe('Handoff to a person settings', () => {
  it('is disabled on the free plan, with the way to Pro', async () => {
    const { calls } = openDetail();
    await screen.findByRole('heading', { name: /^Handoff to a person/ });
    const handoff = card('Handoff to a person');
    expect(handoff.getByText('PRO')).toBeTruthy();
    expect(handoff.getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
    expect((handoff.getByRole('switch', { name: 'Let visitors talk to a person' }) as HTMLButtonElement).disabled).toBe(true);
    expect((handoff.getByRole('button', { name: 'Save Handoff' }) as HTMLButtonElement).disabled).toBe(true);
    expect(saves(calls)).toHaveLength(0);
  });

  it('turns handoff on for a pro owner, with the wait in minutes', async () => {
    const { calls } = openDetail(undefined, { Me: () => ({ data: { me: proUser } }), UpdateChatbotLeadSettings: saveAnswer });
    await screen.findByRole('heading', { name: /^Handoff to a person/ });
    const handoff = card('Handoff to a person');
    expect(handoff.queryByText('PRO')).toBeNull();
    expect((handoff.getByLabelText('Wait for a person (minutes)') as HTMLInputElement).value).toBe('5');
    fireEvent.click(handoff.getByRole('switch', { name: 'Let visitors talk to a person' }));
    fireEvent.change(handoff.getByLabelText('Wait for a person (minutes)'), { target: { value: '2.5' } });
    fireEvent.click(handoff.getByRole('button', { name: 'Save Handoff' }));
    await waitFor(() => expect(saves(calls)).toHaveLength(1));
    expect(saves(calls)[0].variables.input).toEqual({ handoff: { enabled: true, timeoutSeconds: 150 } });
    expect(await handoff.findByText('Chatbot updated successfully')).toBeTruthy();
    expect(handoff.getByRole('switch', { name: 'Let visitors talk to a person' }).getAttribute('aria-checked')).toBe('true');
  });
});

describe('lead settings values', () => {
  it('reads and writes the form and the wait', () => {
    const stored = {
      ...sampleChatbot(),
      name: 'off',
      email: 'required',
      phone: 'off',
      trigger: 'when_unanswered',
      afterMessages: 2,
      consentText: '',
    } as const;
    const form = leadFormSettings(stored);
    expect(form.afterMessages).toBe('2');
    expect(formIsOn(form)).toBe(true);
    expect(formIsOn({ name: 'off', email: 'off', phone: 'off' })).toBe(false);
    // What cannot be a whole number travels as 0, for the service to refuse with its message.
    expect(leadFormInput({ ...form, afterMessages: '2.5' }).afterMessages).toBe(0);
    expect(leadFormInput({ ...form, afterMessages: '' }).afterMessages).toBe(0);
    expect(handoffSettings({ enabled: true, timeoutSeconds: 90 }).timeoutMinutes).toBe('1.5');
    expect(handoffInput({ enabled: false, timeoutMinutes: '60' })).toEqual({ enabled: false, timeoutSeconds: 3600 });
    expect(handoffInput({ enabled: false, timeoutMinutes: 'soon' }).timeoutSeconds).toBe(0);
  });
});
