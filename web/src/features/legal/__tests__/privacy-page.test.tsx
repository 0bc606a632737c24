import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockLink } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

describe('Privacy page', () => {
  it('says where to download the data and delete the account, what deleting removes, and what is kept', () => {
    renderApp('/privacy', mockLink({}).link);
    expect(screen.getByRole('heading', { name: 'Your data and deleting your account' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Account page' }).getAttribute('href')).toBe('/account');
    expect(screen.getByText(/download a copy of your data, and delete your account/)).toBeTruthy();
    expect(
      screen.getByText(
        'Deleting your account removes your chatbots, their knowledge, pictures and conversations, and your personal data, and cancels your subscription.',
      ),
    ).toBeTruthy();
    expect(screen.getByText(/kept only as anonymised accounting records, where the law requires/)).toBeTruthy();
  });

  it('keeps the age requirement: not for anyone under 18', () => {
    renderApp('/privacy', mockLink({}).link);
    expect(screen.getByText(/Parley is not intended for anyone under 18/)).toBeTruthy();
  });
});
