import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isOutboxMailId,
  newOutboxMailId,
  readOutbox,
  readOutboxMail,
  readOutboxRawMail,
  writeOutboxMail,
  type OutboxMail,
} from '../src/mail-outbox.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parley-outbox-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const mail = (at: Date, subject: string): OutboxMail => ({
  id: newOutboxMailId(at),
  date: at.toISOString(),
  from: 'Parley <no-reply@parley.local>',
  to: ['ada@example.com'],
  subject,
  text: `${subject} text`,
  html: `<p>${subject}</p>`,
});

describe('mail outbox', () => {
  it('makes filename-safe ids that sort by time', () => {
    const ids = [new Date('2020-01-01T00:00:00Z'), new Date('2026-11-24T13:00:00.001Z'), new Date('2026-11-24T13:00:00.002Z')].map((d) =>
      newOutboxMailId(d),
    );
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{13}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(newOutboxMailId()).not.toBe(newOutboxMailId());
  });

  it('creates the folder, stores .json and .eml, and reads the latest first up to the limit', async () => {
    const dir = join(root, 'a', 'b');
    const t = Date.parse('2026-11-24T10:00:00Z');
    const mails = [mail(new Date(t), 'first'), mail(new Date(t + 1), 'second'), mail(new Date(t + 2), 'third')];
    // Written out of order: the ids, not the writing order, decide.
    for (const m of [mails[1], mails[2], mails[0]]) await writeOutboxMail(dir, m, `Subject: ${m.subject}\r\n\r\nbody`);
    expect((await readdir(dir)).sort()).toEqual(mails.flatMap((m) => [`${m.id}.eml`, `${m.id}.json`]).sort());

    expect((await readOutbox(dir, { limit: 10 })).map((m) => m.subject)).toEqual(['third', 'second', 'first']);
    expect((await readOutbox(dir, { limit: 2 })).map((m) => m.subject)).toEqual(['third', 'second']);
    expect(await readOutbox(dir, { limit: 0 })).toEqual([]);
    expect(await readOutboxMail(dir, mails[0].id)).toEqual(mails[0]);
    expect((await readOutboxRawMail(dir, mails[0].id))?.toString()).toBe('Subject: first\r\n\r\nbody');
  });

  it('is empty when the folder does not exist, and ignores files that are not mails', async () => {
    expect(await readOutbox(join(root, 'missing'), { limit: 10 })).toEqual([]);
    const dir = join(root, 'mixed');
    const m = mail(new Date(), 'only');
    await writeOutboxMail(dir, m);
    await writeFile(join(dir, 'notes.json'), '{}');
    await writeFile(join(dir, `${newOutboxMailId()}.json`), 'not json');
    expect((await readOutbox(dir, { limit: 10 })).map((x) => x.subject)).toEqual(['only']);
    expect(await readOutboxRawMail(dir, m.id)).toBeNull();
  });

  it('refuses ids that are not of the generated shape, so no path leaves the folder', async () => {
    const dir = join(root, 'safe');
    await writeOutboxMail(dir, mail(new Date(), 'x'));
    // A mail "outside" the folder that a traversal would reach.
    const outside = mail(new Date(), 'outside');
    await writeOutboxMail(root, outside);
    for (const id of [`../${outside.id}`, '../../etc/passwd', `${outside.id}/..`, '', 'ABC', `${outside.id}.json`, `/${outside.id}`]) {
      expect(isOutboxMailId(id), id).toBe(false);
      expect(await readOutboxMail(dir, id), id).toBeNull();
      expect(await readOutboxRawMail(dir, id), id).toBeNull();
    }
    await expect(writeOutboxMail(dir, { ...outside, id: '../evil' })).rejects.toThrow(/not an outbox mail id/);
  });
});
