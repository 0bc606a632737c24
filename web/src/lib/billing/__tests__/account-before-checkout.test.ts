import { describe, expect, it } from 'vitest';
import { sampleUser } from '../../../test/mock-link';
import {
  accountBeforeCheckout,
  accountChanged,
  forgetAccountBeforeCheckout,
  rememberAccountBeforeCheckout,
} from '../account-before-checkout';

describe('the account before a checkout', () => {
  it('is remembered for the tab and forgotten on request', () => {
    expect(accountBeforeCheckout()).toBeNull();
    rememberAccountBeforeCheckout(sampleUser);
    expect(accountBeforeCheckout()).toEqual({ subscription: 'free', creditBalance: '0.01' });
    forgetAccountBeforeCheckout();
    expect(accountBeforeCheckout()).toBeNull();
  });

  it('reads unreadable or foreign storage as unknown', () => {
    sessionStorage.setItem('parley.accountBeforeCheckout', '{not json');
    expect(accountBeforeCheckout()).toBeNull();
    sessionStorage.setItem('parley.accountBeforeCheckout', JSON.stringify({ subscription: 1 }));
    expect(accountBeforeCheckout()).toBeNull();
  });

  it('has changed when the plan or the credit (as an amount) changed', () => {
    const before = { subscription: 'free', creditBalance: '0.01' };
    expect(accountChanged(before, sampleUser)).toBe(false);
    expect(accountChanged(before, { ...sampleUser, usage: { ...sampleUser.usage, creditBalance: '0.0100' } })).toBe(false);
    expect(accountChanged(before, { ...sampleUser, subscription: 'pro' })).toBe(true);
    expect(accountChanged(before, { ...sampleUser, usage: { ...sampleUser.usage, creditBalance: '5.01' } })).toBe(true);
  });
});
