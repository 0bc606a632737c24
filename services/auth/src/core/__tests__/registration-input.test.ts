import { ConnectError, Code } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { parseRegistration, type RegistrationRequest } from '../registration-input.ts';
import { isValidEmail, normalizeEmail } from '../email.ts';

const base: RegistrationRequest = { email: 'Ada@Example.com', password: 'secret1', passwordConfirmation: 'secret1', name: '' };

function messageOf(req: Partial<RegistrationRequest>): string {
  try {
    parseRegistration({ ...base, ...req });
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    return (err as ConnectError).rawMessage;
  }
  throw new Error('expected a validation error');
}

describe('parseRegistration', () => {
  it('normalises the email and leaves an empty name empty (the product then greets "User")', () => {
    expect(parseRegistration({ ...base, email: '  Ada.Lovelace@Example.COM ' })).toEqual({
      email: 'ada.lovelace@example.com',
      password: 'secret1',
      name: '',
    });
  });

  it('keeps a given name, trimmed; a blank one is empty', () => {
    expect(parseRegistration({ ...base, name: '  Ada Lovelace  ' }).name).toBe('Ada Lovelace');
    expect(parseRegistration({ ...base, name: '   ' }).name).toBe('');
  });

  it('does not trim or change the password', () => {
    expect(parseRegistration({ ...base, password: ' Secret 1 ', passwordConfirmation: ' Secret 1 ' }).password).toBe(' Secret 1 ');
  });

  it('requires email and password', () => {
    expect(messageOf({ email: '' })).toBe('Please enter all required fields');
    expect(messageOf({ email: '   ' })).toBe('Please enter all required fields');
    expect(messageOf({ password: '', passwordConfirmation: '' })).toBe('Please enter all required fields');
  });

  it('requires the confirmation to match', () => {
    expect(messageOf({ passwordConfirmation: 'secret2' })).toBe('Passwords do not match');
    expect(messageOf({ passwordConfirmation: '' })).toBe('Passwords do not match');
  });

  it('requires at least 6 characters', () => {
    expect(messageOf({ password: 'abcde', passwordConfirmation: 'abcde' })).toBe('Password must be at least 6 characters');
    expect(parseRegistration({ ...base, password: 'abcdef', passwordConfirmation: 'abcdef' }).password).toBe('abcdef');
  });

  it('requires a well-formed email', () => {
    for (const email of [
      'ada',
      'ada@',
      '@example.com',
      'ada@example',
      'ada @example.com',
      'ada@exa mple.com',
      'a@b@c.com',
      'ada@-example.com',
    ]) {
      expect(messageOf({ email }), email).toBe('Please enter a valid email address');
    }
  });

  it('caps the lengths of email, password and name', () => {
    expect(messageOf({ email: `${'a'.repeat(250)}@example.com` })).toBe('Email must be at most 254 characters');
    const long = 'p'.repeat(1025);
    expect(messageOf({ password: long, passwordConfirmation: long })).toBe('Password must be at most 1024 characters');
    expect(messageOf({ name: 'n'.repeat(101) })).toBe('Name must be at most 100 characters');
    const max = 'p'.repeat(1024);
    expect(parseRegistration({ ...base, password: max, passwordConfirmation: max, name: 'n'.repeat(100) }).name).toHaveLength(100);
  });
});

describe('email helpers', () => {
  it('normalises by trimming and lower-casing', () => {
    expect(normalizeEmail('  MiXeD@Case.Org\n')).toBe('mixed@case.org');
  });
  it('accepts ordinary addresses', () => {
    for (const e of ['a@b.co', 'first.last+tag@sub.example.org', "o'brien@example.ie", 'x_y-z@ex-ample.com'])
      expect(isValidEmail(e), e).toBe(true);
  });
});
