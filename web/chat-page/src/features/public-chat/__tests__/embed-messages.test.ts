import { describe, expect, it } from 'vitest';
import { readEmbedMessage, readVisitor } from '../embed-messages';

describe('readVisitor', () => {
  it('keeps a trimmed id and name, reads a numeric id as text and cuts each to 200 characters', () => {
    expect(readVisitor({ id: ' 42 ', name: ' Ada Lovelace ' })).toEqual({ id: '42', name: 'Ada Lovelace' });
    expect(readVisitor({ id: 42 })).toEqual({ id: '42' });
    expect(readVisitor({ name: 'x'.repeat(250) })?.name).toHaveLength(200);
  });

  it('keeps the email the host page told (it pre-fills the lead form)', () => {
    expect(readVisitor({ name: 'Ada', email: ' ada@example.com ' })).toEqual({ name: 'Ada', email: 'ada@example.com' });
    expect(readVisitor({ email: 'ada@example.com' })).toEqual({ email: 'ada@example.com' });
    expect(readVisitor({ email: 42 })).toBeNull();
  });

  it('reads userId as the id, and keeps a userHash of 64 hex digits with an id only', () => {
    const userHash = 'ab'.repeat(32);
    expect(readVisitor({ userId: 'user-42', email: 'ada@example.com', name: 'Ada', userHash })).toEqual({
      id: 'user-42',
      email: 'ada@example.com',
      name: 'Ada',
      userHash,
    });
    expect(readVisitor({ id: 'user-42', userHash: 'not-a-hash' })).toEqual({ id: 'user-42' });
    expect(readVisitor({ name: 'Ada', userHash })).toEqual({ name: 'Ada' });
  });

  it('is null when it names nobody', () => {
    expect(readVisitor({})).toBeNull();
    expect(readVisitor({ id: '  ', name: { first: 'Ada' } })).toBeNull();
    expect(readVisitor('Ada')).toBeNull();
    expect(readVisitor(null)).toBeNull();
  });
});

describe('readEmbedMessage', () => {
  it('reads the four messages of the widget and the embed page', () => {
    expect(readEmbedMessage({ type: 'parley:identify', visitor: { id: 'u1', extra: 'dropped' } })).toEqual({
      type: 'parley:identify',
      visitor: { id: 'u1' },
    });
    expect(readEmbedMessage({ type: 'parley:open' })).toEqual({ type: 'parley:open' });
    expect(readEmbedMessage({ type: 'parley:ready', more: 1 })).toEqual({ type: 'parley:ready' });
    expect(readEmbedMessage({ type: 'parley:close' })).toEqual({ type: 'parley:close' });
  });

  it('ignores anything else', () => {
    expect(readEmbedMessage({ type: 'parley:identify', visitor: {} })).toBeNull();
    expect(readEmbedMessage({ type: 'parley:destroy' })).toBeNull();
    expect(readEmbedMessage('parley:close')).toBeNull();
    expect(readEmbedMessage(null)).toBeNull();
  });
});
