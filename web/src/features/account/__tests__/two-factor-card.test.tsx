import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import * as download from '../../../lib/download-file';
import { accountSection, openAccountPage, twoFactorStatus } from '../../../test/account-fixtures';
import { graphqlError, sampleUser } from '../../../test/mock-link';

const URI =
  'otpauth://totp/Parley:ada%40example.com?issuer=Parley&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30';
const CODES = [
  'aaaaa-11111',
  'bbbbb-22222',
  'ccccc-33333',
  'ddddd-44444',
  'eeeee-55555',
  'fffff-66666',
  'ggggg-77777',
  'hhhhh-88888',
  'jjjjj-99999',
  'kkkkk-00000',
];

function fill(card: Awaited<ReturnType<typeof accountSection>>, label: string, value: string) {
  fireEvent.change(card.getByLabelText(label), { target: { value } });
}

describe('Account page: two-factor sign-in', () => {
  it('sets it up: QR code and key, a code, then the recovery codes once, with copy and download', async () => {
    let enabled = false;
    const saved = vi.spyOn(download, 'downloadTextFile').mockImplementation(() => undefined);
    const { calls } = openAccountPage({
      MyTwoFactor: () => ({ data: { myTwoFactor: twoFactorStatus(enabled) } }),
      Me: () => ({ data: { me: { ...sampleUser, twoFactorEnabled: enabled } } }),
      StartTwoFactorEnrolment: () => ({
        data: {
          startTwoFactorEnrolment: { __typename: 'TwoFactorEnrolment', otpauthUri: URI, secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' },
        },
      }),
      ConfirmTwoFactorEnrolment: ({ variables }) => {
        if (variables.code !== '123456')
          return graphqlError('That code is not right. Enter the 6-digit code your authenticator app shows now.', 'BAD_USER_INPUT');
        enabled = true;
        return { data: { confirmTwoFactorEnrolment: CODES } };
      },
    });
    const card = await accountSection('Two-factor sign-in');
    expect(await card.findByText('Off')).toBeTruthy();
    fireEvent.click(card.getByRole('button', { name: 'Set up two-factor sign-in' }));

    const qr = await card.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(card.getByLabelText('Key').textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');

    fill(card, 'Code from the app', '654321');
    fireEvent.click(card.getByRole('button', { name: 'Turn on' }));
    expect((await card.findByRole('alert')).textContent).toBe(
      'That code is not right. Enter the 6-digit code your authenticator app shows now.',
    );

    fill(card, 'Code from the app', ' 123456 ');
    fireEvent.click(card.getByRole('button', { name: 'Turn on' }));
    const list = await card.findByRole('list', { name: 'Recovery codes' });
    expect(list.textContent).toContain('aaaaa-11111');
    expect(calls.find((c) => c.operationName === 'ConfirmTwoFactorEnrolment' && c.variables.code === '123456')).toBeTruthy();
    // The session's user is asked for again, so the dashboard's guard sees it on.
    await waitFor(() => expect(calls.filter((c) => c.operationName === 'Me').length).toBeGreaterThan(1));

    fireEvent.click(card.getByRole('button', { name: 'Download' }));
    expect(saved).toHaveBeenCalledWith('parley-recovery-codes.txt', expect.stringContaining('kkkkk-00000'), 'text/plain');
    fireEvent.click(card.getByRole('button', { name: 'I have saved them' }));
    expect(await card.findByText('10 recovery codes left.', { exact: false })).toBeTruthy();
    expect(card.getByText('On')).toBeTruthy();
    expect(card.queryByRole('list', { name: 'Recovery codes' })).toBeNull();
  });

  it('turns it off with the password and a code, and asks for both first', async () => {
    let enabled = true;
    const { calls } = openAccountPage({
      MyTwoFactor: () => ({ data: { myTwoFactor: twoFactorStatus(enabled, 7) } }),
      DisableTwoFactor: () => {
        enabled = false;
        return { data: { disableTwoFactor: true } };
      },
    });
    const card = await accountSection('Two-factor sign-in');
    expect(await card.findByText('7 recovery codes left.', { exact: false })).toBeTruthy();
    fireEvent.click(card.getByRole('button', { name: 'Turn off' }));
    expect((await card.findByRole('alert')).textContent).toBe(
      'Please enter your password and a code from your authenticator app or a recovery code.',
    );
    expect(calls.some((c) => c.operationName === 'DisableTwoFactor')).toBe(false);

    fill(card, 'Password', 'secret1');
    fill(card, 'Code or recovery code', 'aaaaa-11111');
    fireEvent.click(card.getByRole('button', { name: 'Turn off' }));
    expect(await card.findByRole('button', { name: 'Set up two-factor sign-in' })).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'DisableTwoFactor')?.variables).toEqual({
      input: { password: 'secret1', code: 'aaaaa-11111' },
    });
  });

  it("shows new recovery codes once they are made, and the server's refusal otherwise", async () => {
    openAccountPage({
      MyTwoFactor: () => ({ data: { myTwoFactor: twoFactorStatus(true, 2) } }),
      RegenerateRecoveryCodes: ({ variables }) =>
        (variables.input as { password: string }).password === 'secret1'
          ? { data: { regenerateRecoveryCodes: CODES } }
          : graphqlError('Current password is incorrect', 'BAD_USER_INPUT'),
    });
    const card = await accountSection('Two-factor sign-in');
    await card.findByText('2 recovery codes left.', { exact: false });
    fill(card, 'Password', 'wrong');
    fill(card, 'Code or recovery code', '123456');
    fireEvent.click(card.getByRole('button', { name: 'New recovery codes' }));
    expect((await card.findByRole('alert')).textContent).toBe('Current password is incorrect');

    fill(card, 'Password', 'secret1');
    fireEvent.click(card.getByRole('button', { name: 'New recovery codes' }));
    expect((await card.findByRole('list', { name: 'Recovery codes' })).textContent).toContain('jjjjj-99999');
    expect(screen.queryByText('Current password is incorrect')).toBeNull();
  });
});
