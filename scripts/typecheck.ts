// `npm run typecheck`: the server code, the web app and the public chat page (on React 18's types, the
// API of preact/compat, its runtime),
// each with its own tsconfig.
import { execFileSync } from 'node:child_process';
import { root } from './stack.ts';

for (const project of ['tsconfig.json', 'web/tsconfig.json', 'web/chat-page/tsconfig.json']) {
  execFileSync('npx', ['tsc', '-p', project], { cwd: root, stdio: 'inherit' });
}
