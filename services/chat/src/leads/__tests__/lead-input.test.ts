// The lead's fields and the chatbot's form (lead-input.ts): pure, with the messages visitors see.
import { describe, expect, it } from 'vitest';
import { Code, ConnectError } from '@connectrpc/connect';
import { sessionIds } from '../../core/session-id.ts';
import {
  checkLeadAgainstForm,
  CONSENT_REQUIRED,
  EMAIL_INVALID,
  fieldNotAsked,
  fieldNotText,
  fieldRequired,
  fieldTooLong,
  NO_LEAD_FORM,
  NOTHING_GIVEN,
  parseLeadEmail,
  parseLeadInput,
  parseLeadPhone,
  parseLeadSource,
  parseLeadText,
  PHONE_INVALID,
  SOURCE_INVALID,
  type RawLeadInput,
} from '../lead-input.ts';

const ids = sessionIds('test-secret');

const refusal = (fn: () => unknown) => {
  try {
    fn();
    return 'valid';
  } catch (err) {
    const e = err as ConnectError;
    return `${Code[e.code]}: ${e.rawMessage}`;
  }
};
const invalidWith = (message: string) => `InvalidArgument: ${message}`;

const raw = (over: Partial<RawLeadInput> = {}): RawLeadInput => ({
  uniqueId: 'abc123',
  sessionId: '',
  name: '',
  email: '',
  phone: '',
  consented: false,
  clientIp: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (test)',
  source: '',
  ...over,
});

describe('lead fields', () => {
  it('takes an email address a person types, trimmed; empty is not given', () => {
    expect(parseLeadEmail(' ada@example.com ')).toBe('ada@example.com');
    expect(parseLeadEmail('a.b+tag@mail.example.co.uk')).toBe('a.b+tag@mail.example.co.uk');
    expect(parseLeadEmail('  ')).toBeNull();
    for (const bad of ['ada', 'ada@', '@example.com', 'ada@example', 'ada @example.com', 'ada@@example.com', 'ada@example..com'])
      expect(refusal(() => parseLeadEmail(bad))).toBe(invalidWith(EMAIL_INVALID));
  });

  it('takes a phone number of 6 to 20 digits with + ( ) - . and spaces', () => {
    expect(parseLeadPhone('+44 (20) 7946-0958')).toBe('+44 (20) 7946-0958');
    expect(parseLeadPhone('123.456')).toBe('123.456');
    expect(parseLeadPhone('1'.repeat(20))).toBe('1'.repeat(20));
    expect(parseLeadPhone('')).toBeNull();
    for (const bad of ['12345', '1'.repeat(21), 'call me', '+44 20 7946 0958 ext 2', '44+20', '555-CALL-NOW'])
      expect(refusal(() => parseLeadPhone(bad))).toBe(invalidWith(PHONE_INVALID));
  });

  it('refuses control characters and more than 200 characters in every field', () => {
    expect(parseLeadText('Zoë 😀', 'name')).toBe('Zoë 😀');
    expect(parseLeadText('😀'.repeat(200), 'name')).toHaveLength(400);
    expect(refusal(() => parseLeadText('x'.repeat(201), 'name'))).toBe(invalidWith(fieldTooLong('name')));
    expect(refusal(() => parseLeadText('Ada\nLovelace', 'name'))).toBe(invalidWith(fieldNotText('name')));
    expect(refusal(() => parseLeadText('Ada\u0000', 'name'))).toBe(invalidWith(fieldNotText('name')));
    expect(refusal(() => parseLeadEmail(`${'a'.repeat(190)}@example.com`))).toBe(invalidWith(fieldTooLong('email')));
    expect(refusal(() => parseLeadPhone('123456\u0085'))).toBe(invalidWith(fieldNotText('phone')));
  });

  it('comes from the form or the handoff timeout; empty is the form', () => {
    expect(parseLeadSource('')).toBe('form');
    expect(parseLeadSource('handoff_timeout')).toBe('handoff_timeout');
    expect(refusal(() => parseLeadSource('import'))).toBe(invalidWith(SOURCE_INVALID));
  });

  it('keeps an issued session id and issues one for any other', () => {
    const issued = ids.issue();
    expect(parseLeadInput(raw({ sessionId: issued, email: 'a@b.co' }), ids)).toMatchObject({ sessionId: issued, newConversation: false });
    const fresh = parseLeadInput(raw({ sessionId: 'made-up-by-the-page', email: 'a@b.co' }), ids);
    expect(fresh.newConversation).toBe(true);
    expect(ids.accept(fresh.sessionId)).toBe(fresh.sessionId);
    expect(fresh.sessionId).not.toBe('made-up-by-the-page');
  });

  it('checks the fields before the chatbot: a bad email is INVALID_ARGUMENT even for an impossible uniqueId', () => {
    expect(refusal(() => parseLeadInput(raw({ uniqueId: '../x', email: 'nope' }), ids))).toBe(invalidWith(EMAIL_INVALID));
    expect(refusal(() => parseLeadInput(raw({ uniqueId: '../x', email: 'a@b.co' }), ids))).toMatch(/^NotFound/);
  });
});

describe('the lead against the form', () => {
  const form = (over: Partial<{ name: string; email: string; phone: string; consentText: string }> = {}) => ({
    name: 'off',
    email: 'required',
    phone: 'optional',
    consentText: '',
    ...over,
  });
  const lead = (
    over: Partial<{
      name: string | null;
      email: string | null;
      phone: string | null;
      consented: boolean;
      source: 'form' | 'handoff_timeout';
    }> = {},
  ) => ({
    name: null,
    email: 'ada@example.com',
    phone: null,
    consented: false,
    source: 'form' as const,
    ...over,
  });

  it('takes what the form asks for', () => {
    expect(refusal(() => checkLeadAgainstForm(lead(), form()))).toBe('valid');
    expect(refusal(() => checkLeadAgainstForm(lead({ phone: '123456' }), form()))).toBe('valid');
  });

  it('refuses a field the form has off, and requires a required one', () => {
    expect(refusal(() => checkLeadAgainstForm(lead({ name: 'Ada' }), form()))).toBe(invalidWith(fieldNotAsked('name')));
    expect(refusal(() => checkLeadAgainstForm(lead({ email: null, phone: '123456' }), form()))).toBe(invalidWith(fieldRequired('email')));
  });

  it('wants at least one field when none is required', () => {
    const allOptional = form({ name: 'optional', email: 'optional', phone: 'optional' });
    expect(refusal(() => checkLeadAgainstForm(lead({ email: null }), allOptional))).toBe(invalidWith(NOTHING_GIVEN));
    expect(refusal(() => checkLeadAgainstForm(lead({ email: null, name: 'Ada' }), allOptional))).toBe('valid');
  });

  it('requires the consent box when the owner wrote a consent line', () => {
    const consent = form({ consentText: 'I agree to be contacted.' });
    expect(refusal(() => checkLeadAgainstForm(lead(), consent))).toBe(invalidWith(CONSENT_REQUIRED));
    expect(refusal(() => checkLeadAgainstForm(lead({ consented: true }), consent))).toBe('valid');
  });

  it('refuses the form of a chatbot that asks for nothing', () => {
    expect(refusal(() => checkLeadAgainstForm(lead(), form({ email: 'off', phone: 'off' })))).toBe(`FailedPrecondition: ${NO_LEAD_FORM}`);
    expect(refusal(() => checkLeadAgainstForm(lead(), undefined))).toBe(`FailedPrecondition: ${NO_LEAD_FORM}`);
  });

  it("takes the handoff timeout's email whatever the form, and requires it", () => {
    const none = form({ email: 'off', phone: 'off', consentText: 'I agree.' });
    expect(refusal(() => checkLeadAgainstForm(lead({ source: 'handoff_timeout' }), none))).toBe('valid');
    expect(refusal(() => checkLeadAgainstForm(lead({ source: 'handoff_timeout', email: null, phone: '123456' }), none))).toBe(
      invalidWith(fieldRequired('email')),
    );
  });
});
