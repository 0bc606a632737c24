import { useCallback, useEffect, useRef, useState } from 'react';

/** docs/product.md, Constants: success banners disappear after this many milliseconds. */
export const SUCCESS_BANNER_MS = 3000;

/** A message that hides itself after `durationMs`; showing a new one restarts the clock. */
export function useFlashMessage(durationMs: number = SUCCESS_BANNER_MS) {
  const [message, setMessage] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const clear = useCallback(() => {
    clearTimeout(timer.current);
    setMessage(null);
  }, []);

  const show = useCallback(
    (text: string) => {
      clearTimeout(timer.current);
      setMessage(text);
      timer.current = setTimeout(() => setMessage(null), durationMs);
    },
    [durationMs],
  );

  useEffect(() => () => clearTimeout(timer.current), []);

  return { message, show, clear };
}
