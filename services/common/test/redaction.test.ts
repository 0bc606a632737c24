// Visitors' words as a role without conversations:read reads them: emails, phone numbers and
// card-like numbers masked, everything else (dates, prices, short numbers, order numbers) as typed.
import { describe, expect, it } from 'vitest';
import { maskContactDetails, readsVisitorsWords, REDACTED } from '../src/redaction.ts';

describe('maskContactDetails', () => {
  it('masks an email address and a phone number in one question', () => {
    expect(maskContactDetails('Call me on +44 20 7946 0958 or mail jo@example.com about my order')).toBe(
      'Call me on [phone] or mail [email] about my order',
    );
  });

  it.each([['jo@example.com'], ['Jo.Smith+shop@mail.example.co.uk'], ['jo_99@example.io'], ['zoë@exemple.fr']])(
    'masks the email %s',
    (email) => {
      expect(maskContactDetails(`write to ${email}, please`)).toBe(`write to ${REDACTED.email}, please`);
    },
  );

  it.each([
    ['+44 20 7946 0958', 'international, spaced'],
    ['+44 (0)20 7946 0958', 'international, with the trunk zero in brackets'],
    ['+442079460958', 'international, unbroken'],
    ['0044 20 7946 0958', 'international, with 00'],
    ['+1 415-555-0100', 'North American, international'],
    ['+33 1 23 45 67 89', 'French, in pairs'],
    ['(415) 555-0100', 'North American, with its area code in brackets'],
    ['415-555-0100', 'North American, dashed'],
    ['415.555.0100', 'North American, dotted'],
    ['1-800-555-0100', 'North American toll-free'],
    ['020 7946 0958', 'British, local'],
    ['07946 095801', 'British mobile'],
    ['07946095801', 'British mobile, unbroken'],
    ['030 123456', 'German, local'],
  ])('masks the phone number %s (%s)', (phone) => {
    expect(maskContactDetails(`Call me on ${phone}.`)).toBe(`Call me on ${REDACTED.phone}.`);
    expect(maskContactDetails(phone)).toBe(REDACTED.phone);
  });

  it.each([
    ['4111 1111 1111 1111'],
    ['4111-1111-1111-1111'],
    ['4111111111111111'],
    ['3782 822463 10005'],
    ['378282246310005'],
    ['6011 0009 9013 9424 123'],
    ['4222222222222'],
  ])('masks the card-like number %s', (card) => {
    expect(maskContactDetails(`my card ${card} was charged twice`)).toBe(`my card ${REDACTED.cardNumber} was charged twice`);
  });

  it.each([
    ['Can I have it delivered on 2026-12-01?'],
    ['Is 01.12.2026 a holiday?'],
    ['Are you open on 12/01/2026 at 10:30?'],
    ['Does it cost $10.00 or $1,299.99?'],
    ['Is it €15,50 a month?'],
    ['Where is my order 123456?'],
    ['Order #12345 has not arrived'],
    ['I need 3 of them, or 12'],
    ['Do you open 9-17 on weekdays?'],
    ['Is it open from 2020-2026?'],
    ['What is the 5G plan for 2026?'],
    ['Version 1.2.3 crashes'],
    ['Do you ship abroad?'],
    [''],
  ])('leaves %j as typed', (text) => {
    expect(maskContactDetails(text)).toBe(text);
  });

  it('masks every detail in a text, and only them', () => {
    expect(
      maskContactDetails('Order 123456 on 2026-12-01 for $10.00: card 4111 1111 1111 1111, phone (415) 555-0100, mail a@b.co or b@c.org'),
    ).toBe('Order 123456 on 2026-12-01 for $10.00: card [card number], phone [phone], mail [email] or [email]');
  });

  it('reads a long text without a detail in one pass', () => {
    for (const text of ['x'.repeat(4000), '1'.repeat(4000), '1 '.repeat(2000), 'a@'.repeat(2000), '(1'.repeat(2000), '+1-'.repeat(1300)]) {
      expect(typeof maskContactDetails(text)).toBe('string');
    }
  });
});

describe('readsVisitorsWords', () => {
  it('is the roles that hold conversations:read', () => {
    expect(['owner', 'admin', 'editor', 'agent', 'viewer'].map(readsVisitorsWords)).toEqual([true, true, true, true, false]);
  });

  it('is no for a missing or unknown role', () => {
    expect(readsVisitorsWords(undefined)).toBe(false);
    expect(readsVisitorsWords('root')).toBe(false);
    expect(readsVisitorsWords('')).toBe(false);
  });
});
