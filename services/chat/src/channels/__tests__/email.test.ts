import { describe, expect, it } from 'vitest';
import { signMailgun, inboundMail } from '@parley/common/testing/fake-mailgun.ts';
import {
  addressOf,
  baseSubject,
  EMAIL_MAX_SKEW_SECONDS,
  mailgunSignatureValid,
  readInboundMail,
  skipReasonOf,
  stripQuoted,
  threadChatId,
} from '../email.ts';

const KEY = 'key-0unit0test0signing0key0000000';
const TOKEN = 'a'.repeat(50);

describe("Mailgun's signature", () => {
  it('is the HMAC of timestamp and token, within five minutes either way', () => {
    const now = 1_800_000_000;
    const ts = String(now);
    expect(mailgunSignatureValid(KEY, { timestamp: ts, token: TOKEN, signature: signMailgun(KEY, ts, TOKEN) }, now)).toBe(true);
    expect(mailgunSignatureValid('key-another', { timestamp: ts, token: TOKEN, signature: signMailgun(KEY, ts, TOKEN) }, now)).toBe(false);
    const late = now + EMAIL_MAX_SKEW_SECONDS + 1;
    expect(mailgunSignatureValid(KEY, { timestamp: ts, token: TOKEN, signature: signMailgun(KEY, ts, TOKEN) }, late)).toBe(false);
    expect(mailgunSignatureValid(KEY, { timestamp: ts, token: TOKEN, signature: signMailgun(KEY, ts, TOKEN).toUpperCase() }, now)).toBe(
      false,
    );
    expect(mailgunSignatureValid(KEY, { timestamp: 'x', token: TOKEN, signature: signMailgun(KEY, 'x', TOKEN) }, now)).toBe(false);
  });
});

describe('an inbound mail', () => {
  it('reads the sender, the Message-ID and the thread it names, bounded', () => {
    const mail = readInboundMail(
      inboundMail({
        from: 'Ada@Example.com',
        fromName: 'Ada Lovelace',
        to: 'bot@mail.test',
        text: 'x'.repeat(100),
        messageId: '<m1@example.com>',
        inReplyTo: '<a1@mail.test>',
        references: ['<m0@example.com>', '<a1@mail.test>'],
      }),
      40,
    );
    expect([mail.sender, mail.senderName, mail.messageId, mail.text.length]).toEqual([
      'ada@example.com',
      'Ada Lovelace',
      '<m1@example.com>',
      40,
    ]);
    expect(mail.parents).toEqual(['<a1@mail.test>', '<m0@example.com>']);
    expect(() => readInboundMail({ sender: 'ada@example.com', 'body-plain': 'hi' }, 100)).toThrow(/Message-Id/);
    expect(() => readInboundMail({ sender: 'not an address', 'Message-Id': '<m@x>' }, 100)).toThrow(/sender/);
    expect(() => readInboundMail({ sender: 'a@b.c', 'Message-Id': '<m@x>', 'message-headers': '{' }, 100)).toThrow();
  });

  it('keeps only what the contact wrote, not the quote', () => {
    expect(stripQuoted('Thanks!\n\nOn Tue, 1 Dec 2026 at 10:00, Bot <b@x> wrote:\n> Old answer\n> more')).toBe('Thanks!');
    expect(stripQuoted('Yes\r\n> quoted\r\nand no\r\n-- \r\nAda')).toBe('Yes\nand no');
    expect(stripQuoted('Hi\n-----Original Message-----\nFrom: bot')).toBe('Hi');
  });

  it('is never answered when it is an auto-reply, a bounce or a loop', () => {
    const reason = (o: Partial<Parameters<typeof inboundMail>[0]>) =>
      skipReasonOf(
        readInboundMail(inboundMail({ from: 'ada@example.com', to: 'bot@mail.test', text: 'Hello', ...o }), 1000),
        'bot@mail.test',
        'mail.test',
      );
    expect(reason({})).toBeNull();
    expect(reason({ headers: [['Auto-Submitted', 'no']] })).toBeNull();
    expect(reason({ headers: [['Auto-Submitted', 'auto-generated']] })).toBe('auto_reply');
    expect(reason({ headers: [['X-Autorespond', 'vacation']] })).toBe('auto_reply');
    expect(reason({ headers: [['Precedence', 'Bulk']] })).toBe('auto_reply');
    expect(reason({ headers: [['List-Id', '<news.example.com>']] })).toBe('auto_reply');
    expect(reason({ from: 'postmaster@example.com' })).toBe('bounce');
    expect(reason({ headers: [['Return-Path', '<>']] })).toBe('bounce');
    expect(reason({ headers: [['Content-Type', 'message/delivery-status']] })).toBe('bounce');
    expect(reason({ from: 'BOT@mail.test' })).toBe('own_address');
    expect(reason({ references: Array.from({ length: 9 }, (_, i) => `<parley.${i}@mail.test>`) })).toBeNull();
    expect(reason({ references: Array.from({ length: 10 }, (_, i) => `<parley.${i}@mail.test>`) })).toBe('loop');
    expect(reason({ text: '> only a quote' })).toBe('empty');
  });

  it('names its thread from its own Message-ID, and its subject without Re:', () => {
    expect(threadChatId('c1', '<m@x>')).toBe(threadChatId('c1', '<m@x>'));
    expect(threadChatId('c1', '<m@x>')).not.toBe(threadChatId('c2', '<m@x>'));
    expect(baseSubject('Re: RE: Fwd: Opening hours')).toBe('Opening hours');
    expect(baseSubject('  ')).toBe('(no subject)');
    expect(addressOf('"Ada" <ADA@example.com>')).toBe('ada@example.com');
    expect(addressOf('<@>')).toBe('');
  });
});
