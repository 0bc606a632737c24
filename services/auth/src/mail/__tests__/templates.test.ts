import { describe, expect, it } from 'vitest';
import { accountDeletedMail, emailChangedMail, passwordChangedMail, passwordResetMail, resetLink } from '../templates.ts';

describe('mail templates', () => {
  it('the reset mail carries the link, says it expires in an hour and can be ignored', () => {
    const mail = passwordResetMail({ publicUrl: 'https://parley.example', token: 'abc_DEF-123', ttlSeconds: 3600 });
    expect(mail.subject).toBe('Reset your Parley password');
    expect(mail.text).toContain('https://parley.example/reset-password?token=abc_DEF-123');
    expect(mail.text).toContain('expires in 1 hour');
    expect(mail.text).toContain('you can ignore this mail');
    expect(mail.html).toContain('href="https://parley.example/reset-password?token=abc_DEF-123"');
    expect(mail.html).toContain('Parley');
    expect(passwordResetMail({ publicUrl: 'https://p.example', token: 't', ttlSeconds: 1800 }).text).toContain('expires in 30 minutes');
  });

  it('encodes the token in the link', () => {
    expect(resetLink('https://parley.example', 'a+b/c=')).toBe('https://parley.example/reset-password?token=a%2Bb%2Fc%3D');
  });

  it('escapes interpolated values in the HTML part, not in the text part', () => {
    const mail = emailChangedMail({ newEmail: '"><script>alert(1)</script>@example.com' });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;');
    expect(mail.text).toContain('"><script>alert(1)</script>@example.com');
  });

  it('every mail is branded and has a text and an HTML part', () => {
    for (const mail of [
      passwordResetMail({ publicUrl: 'https://p.example', token: 't', ttlSeconds: 3600 }),
      passwordChangedMail({ publicUrl: 'https://p.example' }),
      emailChangedMail({ newEmail: 'new@example.com' }),
      accountDeletedMail(),
    ]) {
      expect(mail.subject).toMatch(/Parley/);
      expect(mail.text).toMatch(/Parley team$/);
      expect(mail.html).toMatch(/^<!doctype html>/);
    }
  });
});
