import { describe, expect, it } from 'vitest';
import { ConnectError } from '@connectrpc/connect';
import { isLimitStop, limitStop, parseReasonFilter, readReason, turnReason } from '../reasons.ts';

describe('turnReason', () => {
  const base = { message: 'When do you open?', unanswered: false, offerHandoff: false };

  it('is null for an answer that cites the knowledge and offers nobody', () => {
    expect(turnReason(base)).toBeNull();
  });

  it('is asked_for_person when the visitor asks for one, whatever else the turn says', () => {
    expect(turnReason({ ...base, message: 'I want to talk to a person', unanswered: true, offerHandoff: true })).toBe('asked_for_person');
    expect(turnReason({ ...base, message: 'Je veux parler à un conseiller', modelReason: 'not_supported', offerHandoff: true })).toBe(
      'asked_for_person',
    );
  });

  it("takes the model's handoff reason before a failed tool and the unanswered rule", () => {
    expect(turnReason({ ...base, modelReason: 'not_supported', toolFailed: true, unanswered: true, offerHandoff: true })).toBe(
      'not_supported',
    );
  });

  it('is action_failed when a tool failed in the turn', () => {
    expect(turnReason({ ...base, toolFailed: true })).toBe('action_failed');
    expect(turnReason({ ...base, toolFailed: true, unanswered: true })).toBe('action_failed');
  });

  it('is missing_knowledge for an unanswered answer, or a handoff the model offered without a reason', () => {
    expect(turnReason({ ...base, unanswered: true })).toBe('missing_knowledge');
    expect(turnReason({ ...base, offerHandoff: true })).toBe('missing_knowledge');
  });
});

describe('reason filters and values', () => {
  it('reads a filter: empty is none, a code is itself, anything else is INVALID_ARGUMENT', () => {
    expect(parseReasonFilter(undefined)).toBeNull();
    expect(parseReasonFilter('  ')).toBeNull();
    expect(parseReasonFilter(' Limit_Reached ')).toBe('limit_reached');
    expect(() => parseReasonFilter('because')).toThrow(/Reason must be one of missing_knowledge/);
  });

  it('reads a stored value back as a code or null', () => {
    expect(readReason('action_failed')).toBe('action_failed');
    expect(readReason('')).toBeNull();
    expect(readReason(7)).toBeNull();
  });

  it('tells a limit stop from any other refusal', () => {
    const stop = limitStop(new ConnectError('limit'));
    expect(isLimitStop(stop)).toBe(true);
    expect(isLimitStop(new ConnectError('limit'))).toBe(false);
    expect(isLimitStop(undefined)).toBe(false);
  });
});
