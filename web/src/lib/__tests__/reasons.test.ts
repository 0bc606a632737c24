import { describe, expect, it } from 'vitest';
import { countByReason, reasonLabel, REASON_FILTER_OPTIONS, withReason } from '../reasons';

const groups = [
  { id: 'a', count: 6, reason: 'missing_knowledge' },
  { id: 'b', count: 2, reason: 'asked_for_person' },
  { id: 'c', count: 1, reason: null },
  { id: 'd', count: 3, reason: 'action_failed' },
];

describe('reason codes in the dashboard', () => {
  it('labels each code, and reads a missing one as "No reason"', () => {
    expect(reasonLabel('limit_reached')).toBe('Limit reached');
    expect(reasonLabel('not_supported')).toBe('Not supported');
    expect(reasonLabel(null)).toBe('No reason');
    expect(reasonLabel('bored')).toBe('No reason');
    expect(REASON_FILTER_OPTIONS.map((o) => o.value)).toEqual([
      '',
      'missing_knowledge',
      'asked_for_person',
      'not_supported',
      'action_failed',
      'limit_reached',
    ]);
  });

  it('counts per reason, weighted, in the codes’ order, an older group counted as missing knowledge', () => {
    expect(countByReason(groups, (g) => g.count)).toEqual([
      { code: 'missing_knowledge', label: 'Missing knowledge', count: 7 },
      { code: 'asked_for_person', label: 'Asked for a person', count: 2 },
      { code: 'action_failed', label: 'Action failed', count: 3 },
    ]);
    expect(countByReason(groups).map((r) => r.count)).toEqual([2, 1, 1]);
  });

  it('keeps one reason’s items, or all of them for ""', () => {
    expect(withReason(groups, 'missing_knowledge').map((g) => g.id)).toEqual(['a', 'c']);
    expect(withReason(groups, 'limit_reached')).toEqual([]);
    expect(withReason(groups, '').map((g) => g.id)).toEqual(['a', 'b', 'c', 'd']);
  });
});
