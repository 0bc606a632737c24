import { render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import DailyCostChart from '../components/daily-cost-chart';

// jsdom has no layout: give the chart a size so recharts draws, as a browser would.
class FixedSizeObserver {
  private readonly callback: ResizeObserverCallback;
  constructor(callback: ResizeObserverCallback) {
    this.callback = callback;
  }
  observe(target: Element) {
    this.callback(
      [{ target, contentRect: { width: 600, height: 260 } } as unknown as ResizeObserverEntry],
      this as unknown as ResizeObserver,
    );
  }
  unobserve() {}
  disconnect() {}
}

describe('DailyCostChart', () => {
  beforeEach(() => {
    vi.stubGlobal('ResizeObserver', FixedSizeObserver);
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue({
      width: 600,
      height: 260,
      top: 0,
      left: 0,
      right: 600,
      bottom: 260,
      x: 0,
      y: 0,
      toJSON: () => ({}),
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('draws the days and describes the busiest one for screen readers', () => {
    const { container } = render(
      <DailyCostChart
        points={[
          { date: '2025-06-12', cost: 0.000155, requests: 1, tokens: 1800 },
          { date: '2025-06-13', cost: 0, requests: 0, tokens: 0 },
          { date: '2025-06-14', cost: 0.0004012, requests: 1, tokens: 1200 },
        ]}
      />,
    );
    expect(container.querySelector('figcaption')?.textContent).toBe('Cost per day (UTC) over 3 days; highest $0.00040 on Jun 14, 2025.');
    expect(container.querySelector('svg.recharts-surface')).not.toBeNull();
  });

  it('labels the cost axis without repeating a value at fractions of a cent', () => {
    const { container } = render(
      <DailyCostChart
        points={[
          { date: '2025-06-12', cost: 0.0000062, requests: 1, tokens: 60 },
          { date: '2025-06-13', cost: 0.0000155, requests: 2, tokens: 150 },
          { date: '2025-06-14', cost: 0.0000031, requests: 1, tokens: 30 },
        ]}
      />,
    );
    const labels = [...container.querySelectorAll('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value')].map(
      (tick) => tick.textContent,
    );
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toEqual(['$0.000000', '$0.000005', '$0.000010', '$0.000015', '$0.000020']);
  });
});
