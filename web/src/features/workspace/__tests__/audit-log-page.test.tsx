import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { openAsMember, sampleWorkspace } from '../../../test/workspace-fixtures';
import { actionLabel, dayRange, detailsSummary } from '../audit-log-labels';

function auditEvent(id: string, action: string, overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'AuditEvent' as const,
    id,
    actorEmail: 'ada@example.com' as string | null,
    action,
    target: 'grace@example.com',
    details: '{"role":"agent"}',
    clientIp: '203.0.113.7' as string | null,
    createdAt: '2025-03-02T10:00:00.000Z',
    ...overrides,
  };
}

const page = (events: ReturnType<typeof auditEvent>[], nextCursor: string | null) => ({
  data: { auditLog: { __typename: 'AuditEventPage' as const, events, nextCursor } },
});

describe('Audit log page', () => {
  it('shows the entries newest first and loads more with the cursor', async () => {
    const { calls } = openAsMember('/workspace/audit-log', sampleWorkspace(), {
      AuditLog: ({ variables }) =>
        variables.after === 'c1'
          ? page([auditEvent('e3', 'member.removed', { actorEmail: null, details: '{}', clientIp: null })], null)
          : page([auditEvent('e1', 'member.role_changed'), auditEvent('e2', 'member.invited')], 'c1'),
    });
    const table = await screen.findByRole('table');
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    expect(within(table).getByText('Member role changed')).toBeTruthy();
    expect(within(table).getAllByText('role: agent')).toHaveLength(2);
    expect(document.title).toBe('Audit log — Parley');

    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(4));
    expect(screen.getByText('System')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    const asked = calls.filter((c) => c.operationName === 'AuditLog');
    expect(asked[0].variables).toEqual({ filter: {}, first: 50 });
    expect(asked[1].variables).toEqual({ filter: {}, first: 50, after: 'c1' });
    expect(asked[1].headers['x-workspace-id']).toBe('w-team');
  });

  it('filters by action and by dates', async () => {
    const { calls } = openAsMember('/workspace/audit-log', sampleWorkspace({ role: 'ADMIN' }), {
      AuditLog: () => page([], null),
    });
    expect(await screen.findByText('No entries yet.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Action'), { target: { value: 'member.' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2025-03-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2025-03-31' } });
    expect(await screen.findByText('No entries match the filter.')).toBeTruthy();
    await waitFor(() =>
      expect(calls.filter((c) => c.operationName === 'AuditLog').at(-1)?.variables.filter).toEqual({
        action: 'member.',
        ...dayRange('2025-03-01', '2025-03-31'),
      }),
    );
  });

  it('tells an editor it is not allowed, without asking', async () => {
    const { calls } = openAsMember('/workspace/audit-log', sampleWorkspace({ role: 'EDITOR' }));
    expect(await screen.findByRole('heading', { name: 'Not allowed' })).toBeTruthy();
    expect(screen.getByText('Only owners and admins can see the audit log of this workspace.')).toBeTruthy();
    expect(calls.some((c) => c.operationName === 'AuditLog')).toBe(false);
  });

  it('shows the server’s refusal', async () => {
    openAsMember('/workspace/audit-log', sampleWorkspace(), {
      AuditLog: () => ({
        data: null,
        errors: [{ message: 'Only an admin or above in this workspace can read the audit log.', extensions: { code: 'FORBIDDEN' } }],
      }),
    });
    expect((await screen.findByRole('alert')).textContent).toBe('Only an admin or above in this workspace can read the audit log.');
  });
});

describe('Audit log labels', () => {
  it('reads actions and details', () => {
    expect(actionLabel('ownership.transferred')).toBe('Ownership transferred');
    expect(detailsSummary('{"from":"agent","to":"editor"}')).toBe('from: agent, to: editor');
    expect(detailsSummary('{}')).toBe('');
    expect(detailsSummary('not json')).toBe('not json');
  });

  it('turns the days into the start of the first and the end of the last', () => {
    const { from, to } = dayRange('2025-03-01', '2025-03-02');
    expect(new Date(to!).getTime() - new Date(from!).getTime()).toBe(2 * 24 * 3600 * 1000 - 1);
    expect(dayRange('', '')).toEqual({});
  });
});
