import { readFile, readdir, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOutbox } from '@parley/common/mail-outbox.ts';
import { startSmtpCatcher } from '@parley/common/testing/smtp-catcher.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMailer } from '../../src/mail/mailer.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const logger = () => ({ info: vi.fn(), debug: vi.fn(), warn: vi.fn(), error: vi.fn() });
const mail = {
  to: 'ada@example.com',
  subject: 'Hello from Parley',
  text: 'Plain words.\nhttps://parley.example/x',
  html: '<p>Plain words.</p>',
};

describe('mailer', () => {
  it('without SMTP_URL writes each mail to the outbox as .json and .eml, and says where once', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'parley-mailer-')), 'not-yet-there');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const log = logger();
    const mailer = createMailer(
      { SMTP_URL: undefined, MAIL_FROM: 'Parley <no-reply@parley.local>', MAIL_OUTBOX_DIR: dir, PUBLIC_URL: 'http://localhost:8080' },
      log as never,
    );
    expect(log.info).toHaveBeenCalledTimes(1);
    expect(log.info).toHaveBeenCalledWith({ dir, page: 'http://localhost:8080/dev/mail' }, 'mail goes to the local outbox');

    await mailer.send(mail);
    await mailer.send({ ...mail, subject: 'Second' });
    mailer.close();

    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(4);
    const [latest, first] = await readOutbox(dir, { limit: 10 });
    expect(latest.subject).toBe('Second');
    expect(first).toMatchObject({
      from: 'Parley <no-reply@parley.local>',
      to: ['ada@example.com'],
      subject: 'Hello from Parley',
      text: mail.text,
      html: mail.html,
    });
    expect(new Date(first.date).getTime()).toBeLessThanOrEqual(Date.now());
    expect(files).toEqual(expect.arrayContaining([`${first.id}.json`, `${first.id}.eml`]));

    const eml = (await readFile(join(dir, `${first.id}.eml`))).toString('utf8');
    expect(eml).toMatch(/^From: Parley <no-reply@parley\.local>$/m);
    expect(eml).toMatch(/^To: ada@example\.com$/m);
    expect(eml).toMatch(/^Subject: Hello from Parley$/m);
    expect(eml).toContain('Content-Type: text/plain');
    expect(eml).toContain('Content-Type: text/html');
  });

  it('with an smtp:// URL sends to that server, plain (no TLS offered)', async () => {
    const smtp = await startSmtpCatcher();
    cleanups.push(() => smtp.close());
    const log = logger();
    const mailer = createMailer(
      {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Parley <no-reply@parley.local>',
        MAIL_OUTBOX_DIR: '/nonexistent',
        PUBLIC_URL: 'http://localhost:8080',
      },
      log as never,
    );
    await mailer.send(mail);
    mailer.close();
    expect(smtp.mails).toHaveLength(1);
    const [received] = smtp.mails;
    expect(received).toMatchObject({
      from: 'Parley <no-reply@parley.local>',
      to: ['ada@example.com'],
      subject: 'Hello from Parley',
      html: mail.html,
    });
    expect(received.text.trim()).toBe(mail.text);
    expect(log.info).toHaveBeenCalledWith({ smtp: new URL(smtp.url).host }, 'mail goes to the SMTP server');
  });

  it('with a mail server that is not there fails the send', async () => {
    const smtp = await startSmtpCatcher();
    const url = smtp.url;
    await smtp.close();
    const mailer = createMailer(
      { SMTP_URL: url, MAIL_FROM: 'Parley <no-reply@parley.local>', MAIL_OUTBOX_DIR: '/nonexistent', PUBLIC_URL: 'http://localhost:8080' },
      logger() as never,
    );
    await expect(mailer.send(mail)).rejects.toThrow(/ECONNREFUSED/);
    mailer.close();
  });
});
