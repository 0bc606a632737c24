import { describe, expect, it } from 'vitest';
import {
  asksForPerson,
  canMove,
  HANDOFF_MOVES,
  HANDOFF_STATUSES,
  handoffView,
  mirrorValue,
  offersHandoff,
  parseMirror,
  type HandoffMove,
  type HandoffStatus,
} from '../handoff.ts';

describe('the handoff moves', () => {
  it("are the ADR's table, and only these", () => {
    const allowed = (move: HandoffMove) => HANDOFF_STATUSES.filter((s) => canMove(s, move));
    expect(allowed('request')).toEqual(['bot', 'closed']);
    expect(allowed('claim')).toEqual(['waiting', 'human']);
    expect(allowed('handBack')).toEqual(['waiting', 'human']);
    expect(allowed('timeout')).toEqual(['waiting']);
    expect(allowed('close')).toEqual(['waiting', 'human']);
    expect(allowed('resume')).toEqual(['closed']);
    expect(Object.fromEntries(Object.entries(HANDOFF_MOVES).map(([m, { to }]) => [m, to]))).toEqual({
      request: 'waiting',
      claim: 'human',
      handBack: 'bot',
      timeout: 'bot',
      close: 'closed',
      resume: 'bot',
    });
  });

  it('shows the agent only while human, and the wait only while a person has it', () => {
    const at = new Date('2026-11-28T09:00:00Z');
    const view = (handoffStatus: HandoffStatus) => handoffView({ handoffStatus, assigneeName: 'Ada', handoffRequestedAt: at });
    expect(view('human')).toEqual({ status: 'human', agentName: 'Ada', waitingSince: at, timedOut: false });
    expect(view('waiting')).toEqual({ status: 'waiting', agentName: '', waitingSince: at, timedOut: false });
    expect(view('bot')).toEqual({ status: 'bot', agentName: '', waitingSince: null, timedOut: false });
    expect(view('closed').waitingSince).toBeNull();
  });
});

describe('the Redis mirror', () => {
  it('reads back what it wrote, and nothing else', () => {
    const at = new Date('2026-11-28T09:00:00Z');
    const human = { status: 'human' as const, agentName: 'Ada', waitingSince: at, timedOut: false };
    expect(JSON.parse(mirrorValue(human))).toEqual({ status: 'human', agentName: 'Ada', since: '2026-11-28T09:00:00.000Z' });
    expect(parseMirror(mirrorValue(human))).toEqual(human);
    for (const raw of [null, undefined, '', 'not json', '[]', '{"status":"bot"}', '{"status":"closed"}', '{"status":"someone"}']) {
      expect(parseMirror(raw), String(raw)).toBeNull();
    }
    expect(parseMirror('{"status":"waiting","since":"garbage"}')).toEqual({
      status: 'waiting',
      agentName: '',
      waitingSince: null,
      timedOut: false,
    });
  });
});

describe('a visitor asking for a person', () => {
  it.each([
    'Can I talk to a human?',
    'I want to speak to a person please',
    'REAL PERSON',
    'customer service!!',
    'Is there a live agent?',
    'operator',
    'Je voudrais parler à quelqu’un',
    'Un humain, svp',
    'Je veux une vraie personne',
    'Le service client ?',
    '转人工',
    '我要找客服',
    '请给我真人',
  ])('is seen in %j', (message) => {
    expect(asksForPerson(message)).toBe(true);
  });

  it.each(['When do you open?', 'Do you sell humane traps?', 'Quelle est votre adresse ?', '你们几点开门？', 'personal data policy', ''])(
    'is not seen in %j',
    (message) => {
      expect(asksForPerson(message)).toBe(false);
    },
  );

  it('is offered only with handoff on, when unanswered or asked for', () => {
    expect(offersHandoff(true, true, 'When do you open?')).toBe(true);
    expect(offersHandoff(true, false, 'Can I talk to a human?')).toBe(true);
    expect(offersHandoff(true, false, 'When do you open?')).toBe(false);
    expect(offersHandoff(false, true, 'Can I talk to a human?')).toBe(false);
  });
});
