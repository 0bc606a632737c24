import { describe, expect, it } from 'vitest';
import { validateForgotPassword, validateLogin, validateRegister, validateResetPassword } from '../validation';

describe('validateLogin', () => {
  it.each([
    { email: '', password: 'secret1' },
    { email: 'ada@example.com', password: '' },
    { email: '   ', password: 'secret1' },
  ])('asks for every field when one is empty (%o)', (values) => {
    expect(validateLogin(values)).toBe('Please enter all fields');
  });

  it('accepts an email and a password', () => {
    expect(validateLogin({ email: 'ada@example.com', password: 'x' })).toBeNull();
  });
});

describe('validateRegister', () => {
  const valid = { email: 'ada@example.com', password: 'secret1', password2: 'secret1' };

  it('requires email and password', () => {
    expect(validateRegister({ ...valid, email: '' })).toBe('Please enter all required fields');
    expect(validateRegister({ ...valid, password: '', password2: '' })).toBe('Please enter all required fields');
  });

  it('requires the confirmation to match before judging length', () => {
    expect(validateRegister({ ...valid, password2: 'secret2' })).toBe('Passwords do not match');
    expect(validateRegister({ ...valid, password: 'abc', password2: 'abd' })).toBe('Passwords do not match');
  });

  it('requires at least 6 characters', () => {
    expect(validateRegister({ ...valid, password: 'abcde', password2: 'abcde' })).toBe('Password must be at least 6 characters');
    expect(validateRegister({ ...valid, password: 'abcdef', password2: 'abcdef' })).toBeNull();
  });
});

describe('validateResetPassword', () => {
  it('applies the registration rules to the new password and its confirmation', () => {
    expect(validateResetPassword({ password: '', password2: '' })).toBe('Please enter all required fields');
    expect(validateResetPassword({ password: 'secret1', password2: '' })).toBe('Passwords do not match');
    expect(validateResetPassword({ password: 'abcde', password2: 'abcde' })).toBe('Password must be at least 6 characters');
    expect(validateResetPassword({ password: 'abcdef', password2: 'abcdef' })).toBeNull();
  });
});

describe('validateForgotPassword', () => {
  it('needs an email', () => {
    expect(validateForgotPassword(' ')).toBe('Please enter your email address');
    expect(validateForgotPassword('ada@example.com')).toBeNull();
  });
});
