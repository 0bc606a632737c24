import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { graphqlError, sampleUser, type Handler } from '../../../test/mock-link';
import { openAsMember, personalWorkspace, sampleMember, sampleWorkspace, section } from '../../../test/workspace-fixtures';
import { RETENTION_SAVED_MESSAGE } from '../hooks/use-retention';

function openSettings(handlers: Record<string, Handler>) {
  const workspace = sampleWorkspace({ role: 'ADMIN' });
  let windows = {
    __typename: 'RetentionWindows',
    conversationDays: null as number | null,
    leadDays: 90 as number | null,
    usageDetailDays: null as number | null,
    webhookDeliveryDays: null as number | null,
    analyticsDays: 365 as number | null,
  };
  return openAsMember('/workspace/members', workspace, {
    Me: () => ({ data: { me: sampleUser } }),
    Members: () => ({ data: { members: [sampleMember({ userId: sampleUser.id, email: sampleUser.email, role: 'ADMIN' })] } }),
    Invitations: () => ({ data: { invitations: [] } }),
    Workspaces: () => ({ data: { workspaces: [personalWorkspace, workspace], currentWorkspace: workspace } }),
    Retention: () => ({ data: { retention: windows } }),
    SetRetention: ({ variables }) => {
      windows = { ...windows, ...(variables.input as typeof windows) };
      return { data: { setRetention: windows } };
    },
    ...handlers,
  });
}

const preview =
  (counts: { conversations: number; messages: number; leads: number } & Partial<Record<string, number>>): Handler =>
  () => ({
    data: {
      retentionPreview: {
        __typename: 'RetentionPreview',
        usageRecords: 0,
        webhookDeliveries: 0,
        analyticsDays: 0,
        questionGroups: 0,
        ...counts,
      },
    },
  });
const UNCHANGED = { usageDetailDays: null, webhookDeliveryDays: null, analyticsDays: 365 };

describe('Workspace settings: data retention', () => {
  it('says what a shorter window deletes before saving it', async () => {
    const { calls } = openSettings({ RetentionPreview: preview({ conversations: 12, messages: 40, leads: 3 }) });
    const card = await section('Data retention');
    const conversations = (await card.findByLabelText('Keep conversations')) as HTMLSelectElement;
    expect(conversations.value).toBe('');
    expect((card.getByLabelText('Keep leads') as HTMLSelectElement).value).toBe('90');
    fireEvent.change(conversations, { target: { value: '30' } });
    fireEvent.click(card.getByRole('button', { name: 'Save' }));

    expect(
      await card.findByText('Saving deletes 12 conversations (40 messages) and 3 leads within the hour. This cannot be undone.'),
    ).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'RetentionPreview')?.variables).toEqual({
      input: { conversationDays: 30, leadDays: 90, ...UNCHANGED },
    });
    expect(calls.some((c) => c.operationName === 'SetRetention')).toBe(false);

    fireEvent.click(card.getByRole('button', { name: 'Delete and save' }));
    expect(await card.findByText(RETENTION_SAVED_MESSAGE)).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'SetRetention')?.variables).toEqual({
      input: { conversationDays: 30, leadDays: 90, ...UNCHANGED },
    });
  });

  it('saves a longer window at once, and shows the server refusal', async () => {
    const { calls } = openSettings({
      SetRetention: () => graphqlError('A retention window is 7 to 36,500 days, or forever.', 'BAD_USER_INPUT'),
    });
    const card = await section('Data retention');
    fireEvent.change(await card.findByLabelText('Keep leads'), { target: { value: '' } });
    fireEvent.click(card.getByRole('button', { name: 'Save' }));
    expect((await card.findByRole('alert')).textContent).toBe('A retention window is 7 to 36,500 days, or forever.');
    await waitFor(() => expect(calls.some((c) => c.operationName === 'RetentionPreview')).toBe(false));
  });

  it('previews and saves the usage detail, webhook deliveries and analytics windows', async () => {
    const { calls } = openSettings({
      RetentionPreview: preview({
        conversations: 0,
        messages: 0,
        leads: 0,
        usageRecords: 1200,
        webhookDeliveries: 1,
        analyticsDays: 40,
        questionGroups: 2,
      }),
    });
    const card = await section('Data retention');
    fireEvent.change(await card.findByLabelText('Keep usage detail'), { target: { value: '90' } });
    fireEvent.change(card.getByLabelText('Keep webhook deliveries'), { target: { value: '30' } });
    fireEvent.change(card.getByLabelText('Keep analytics'), { target: { value: '180' } });
    fireEvent.click(card.getByRole('button', { name: 'Save' }));
    expect(
      await card.findByText(
        'Saving deletes 0 conversations (0 messages), 0 leads, 1,200 usage records, 1 webhook delivery and 40 chatbot days of analytics (2 question groups) within the hour. This cannot be undone.',
      ),
    ).toBeTruthy();
    const input = { conversationDays: null, leadDays: 90, usageDetailDays: 90, webhookDeliveryDays: 30, analyticsDays: 180 };
    expect(calls.find((c) => c.operationName === 'RetentionPreview')?.variables).toEqual({ input });
    fireEvent.click(card.getByRole('button', { name: 'Delete and save' }));
    expect(await card.findByText(RETENTION_SAVED_MESSAGE)).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'SetRetention')?.variables).toEqual({ input });
  });
});
