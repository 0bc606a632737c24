// `npm start`, `npm test` and the benchmarks rebuild web/dist when a file the build reads changed
// (scripts/web-build.ts): the app's, the public chat page's (a package of its own, with its own
// React install) and the gateway's schema.
import { describe, expect, it } from 'vitest';
import { webSourceFiles } from '../scripts/web-build.ts';

describe('the web build staleness check', () => {
  const files = webSourceFiles();

  it('reads the public chat page’s sources, page, configs and lockfile beside the app’s', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'web/chat-page/chat.html',
        'web/chat-page/src/main.tsx',
        'web/chat-page/src/features/public-chat/components/public-chat-page.tsx',
        'web/chat-page/src/widget/widget.ts',
        'web/chat-page/vite.config.ts',
        'web/chat-page/package.json',
        'web/chat-page/package-lock.json',
        'web/index.html',
        'web/src/main.tsx',
        'web/vite.config.ts',
        'gateway/src/features/account/schema.graphql',
      ]),
    );
  });

  it('leaves out installs and builds', () => {
    expect(files.filter((file) => /(^|\/)(node_modules|dist)\//.test(file))).toEqual([]);
  });
});
