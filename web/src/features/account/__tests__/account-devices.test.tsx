import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { accountSection, accountSession, openAccountPage } from '../../../test/account-fixtures';
import { graphqlError } from '../../../test/mock-link';

describe('Account page: devices', () => {
  it('lists the signed-in devices with their date and IP, marking this one', async () => {
    openAccountPage();
    const devices = await accountSection('Devices');
    const items = await devices.findAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]?.textContent).toContain('Signed in Mar 1, 2025');
    expect(items[0]?.textContent).toContain('IP address 203.0.113.7');
    expect(items[0]?.textContent).toContain('This device');
    expect(items[1]?.textContent).toContain('IP address unknown');
    expect(items[1]?.textContent).not.toContain('This device');
  });

  it('signs out the other devices, says how many, and shows the refreshed list', async () => {
    let signedOut = false;
    const { calls } = openAccountPage({
      MySessions: () => ({
        data: {
          mySessions: signedOut
            ? [accountSession()]
            : [accountSession(), accountSession({ id: 's2', current: false }), accountSession({ id: 's3', current: false })],
        },
      }),
      SignOutOtherSessions: () => {
        signedOut = true;
        return { data: { signOutOtherSessions: 2 } };
      },
    });
    const devices = await accountSection('Devices');
    expect(await devices.findAllByRole('listitem')).toHaveLength(3);
    fireEvent.click(devices.getByRole('button', { name: 'Sign out of all other devices' }));

    expect((await devices.findByRole('status')).textContent).toBe('Signed out of 2 other devices');
    await waitFor(() => expect(devices.getAllByRole('listitem')).toHaveLength(1));
    expect(calls.filter((c) => c.operationName === 'MySessions')).toHaveLength(2);
    expect((devices.getByRole('button', { name: 'Sign out of all other devices' }) as HTMLButtonElement).disabled).toBe(true);
    expect(devices.getByText('No other devices are signed in.')).toBeTruthy();
  });

  it('says "device" for one', async () => {
    openAccountPage({ SignOutOtherSessions: () => ({ data: { signOutOtherSessions: 1 } }) });
    const devices = await accountSection('Devices');
    await devices.findAllByRole('listitem');
    fireEvent.click(devices.getByRole('button', { name: 'Sign out of all other devices' }));
    expect((await devices.findByRole('status')).textContent).toBe('Signed out of 1 other device');
  });

  it("shows the server's message when signing out fails", async () => {
    openAccountPage({
      SignOutOtherSessions: () => graphqlError('Service temporarily unavailable. Please try again.', 'SERVICE_UNAVAILABLE'),
    });
    const devices = await accountSection('Devices');
    await devices.findAllByRole('listitem');
    fireEvent.click(devices.getByRole('button', { name: 'Sign out of all other devices' }));
    expect((await devices.findByRole('alert')).textContent).toBe('Service temporarily unavailable. Please try again.');
  });

  it('says so when the list cannot be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    openAccountPage({ MySessions: () => graphqlError('down', 'SERVICE_UNAVAILABLE') });
    const devices = await accountSection('Devices');
    expect((await devices.findByRole('alert')).textContent).toBe('Could not load your devices. Please try again later.');
    expect(screen.queryByRole('button', { name: 'Sign out of all other devices' })).toBeNull();
    vi.restoreAllMocks();
  });
});
