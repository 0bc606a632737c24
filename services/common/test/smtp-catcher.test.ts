import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../src/testing/smtp-catcher.ts';

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(async () => {
  await smtp?.close();
});

const send = (opts: SendMailOptions, url = smtp.url) => {
  const transport = nodemailer.createTransport(url);
  return transport.sendMail(opts).finally(() => transport.close());
};

describe('SMTP catcher', () => {
  it('receives a mail over plain smtp:// and parses its parts', async () => {
    expect(smtp.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    await send({
      from: 'Parley <no-reply@parley.local>',
      to: ['ada@example.com', 'Grace <grace@example.com>'],
      subject: 'Hello',
      text: 'Hi there',
      html: '<p>Hi there</p>',
    });
    const mail = await smtp.waitForMail((m) => m.subject === 'Hello');
    expect(mail).toMatchObject({
      from: 'Parley <no-reply@parley.local>',
      to: ['ada@example.com', 'grace@example.com'],
      subject: 'Hello',
      html: '<p>Hi there</p>',
    });
    expect(mail.text.trim()).toBe('Hi there');
    expect(smtp.mails).toContain(mail);
  });

  it('accepts a login, and a text-only mail has no HTML', async () => {
    const url = new URL(smtp.url);
    url.username = 'user';
    url.password = 'pass';
    await send({ from: 'a@example.com', to: 'b@example.com', subject: 'Text only', text: 'Just text' }, url.toString());
    expect((await smtp.waitForMail((m) => m.subject === 'Text only')).html).toBeNull();
  });

  it('waits for a mail that has not arrived yet, and gives up after the timeout', async () => {
    const waiting = smtp.waitForMail((m) => m.subject === 'Later');
    await send({ from: 'a@example.com', to: 'b@example.com', subject: 'Later', text: 'x' });
    expect((await waiting).subject).toBe('Later');
    await expect(smtp.waitForMail((m) => m.subject === 'Never', 200)).rejects.toThrow(/no matching mail within 200 ms/);
  });
});
