import { describe, expect, it } from 'vitest';
import {
  curlExample,
  draftProblem,
  expiryDate,
  keyState,
  maskedSecret,
  CHATBOT_REQUIRED,
  NAME_REQUIRED,
  SCOPE_REQUIRED,
} from '../api-keys';

const now = new Date('2026-03-01T12:00:00.000Z');
const key = { revokedAt: null, expiresAt: null, previousSecretExpiresAt: null };

describe('keyState', () => {
  it('is active for a key never revoked, expired or rolled', () => {
    expect(keyState(key, now)).toBe('active');
  });

  it('is rolling while a replaced secret still works, active once it stopped', () => {
    expect(keyState({ ...key, previousSecretExpiresAt: '2026-03-01T13:00:00.000Z' }, now)).toBe('rolling');
    expect(keyState({ ...key, previousSecretExpiresAt: '2026-03-01T11:00:00.000Z' }, now)).toBe('active');
  });

  it('is expired from its expiry on, and revoked wins over every other state', () => {
    expect(keyState({ ...key, expiresAt: '2026-03-01T12:00:00.000Z' }, now)).toBe('expired');
    expect(keyState({ ...key, expiresAt: '2026-03-02T12:00:00.000Z' }, now)).toBe('active');
    expect(
      keyState(
        {
          revokedAt: '2026-02-01T00:00:00.000Z',
          expiresAt: '2026-01-01T00:00:00.000Z',
          previousSecretExpiresAt: '2026-04-01T00:00:00.000Z',
        },
        now,
      ),
    ).toBe('revoked');
  });
});

describe('the secret and the quick start', () => {
  it('shows a secret by its prefix and last four characters only', () => {
    expect(maskedSecret({ prefix: 'parley_sk_', lastFour: 'Ab12' })).toBe('parley_sk_…Ab12');
  });

  it("calls the API's chatbots with the key as a Bearer token, on this origin", () => {
    expect(curlExample('https://parley.example')).toBe(
      'curl https://parley.example/api/v1/chatbots \\\n  -H "Authorization: Bearer $PARLEY_API_KEY"',
    );
  });
});

describe('a new key', () => {
  it('expires the chosen number of days after now, or never', () => {
    expect(expiryDate('never', now)).toBeNull();
    expect(expiryDate('30', now)).toBe('2026-03-31T12:00:00.000Z');
    expect(expiryDate('365', now)).toBe('2027-03-01T12:00:00.000Z');
  });

  it('needs a name, a scope, and a chatbot when limited to some', () => {
    const draft = { name: 'CI', scopes: ['chat'], chatbotIds: null, expiry: 'never' as const };
    expect(draftProblem(draft)).toBeNull();
    expect(draftProblem({ ...draft, name: '  ' })).toBe(NAME_REQUIRED);
    expect(draftProblem({ ...draft, scopes: [] })).toBe(SCOPE_REQUIRED);
    expect(draftProblem({ ...draft, chatbotIds: [] })).toBe(CHATBOT_REQUIRED);
    expect(draftProblem({ ...draft, chatbotIds: ['c1'] })).toBeNull();
  });
});
