import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// The default 1 s for findBy/waitFor is tight when the whole monorepo's tests share two cores.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
