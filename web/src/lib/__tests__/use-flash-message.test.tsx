import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SUCCESS_BANNER_MS, useFlashMessage } from '../use-flash-message';

describe('useFlashMessage (success banners)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('hides the message after 3000 ms', () => {
    const { result } = renderHook(() => useFlashMessage());
    act(() => result.current.show('Chatbot updated successfully'));
    expect(result.current.message).toBe('Chatbot updated successfully');
    act(() => vi.advanceTimersByTime(SUCCESS_BANNER_MS - 1));
    expect(result.current.message).toBe('Chatbot updated successfully');
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.message).toBeNull();
    expect(SUCCESS_BANNER_MS).toBe(3000);
  });

  it('a new message restarts the clock', () => {
    const { result } = renderHook(() => useFlashMessage());
    act(() => result.current.show('first'));
    act(() => vi.advanceTimersByTime(2000));
    act(() => result.current.show('second'));
    act(() => vi.advanceTimersByTime(2000));
    expect(result.current.message).toBe('second');
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.message).toBeNull();
  });

  it('clear hides it at once and stops the timer', () => {
    const { result, unmount } = renderHook(() => useFlashMessage());
    act(() => result.current.show('done'));
    act(() => result.current.clear());
    expect(result.current.message).toBeNull();
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
