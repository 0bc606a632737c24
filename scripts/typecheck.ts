// `npm run typecheck`: the server code and the web app, each with its own tsconfig.
import { execFileSync } from 'node:child_process';
import { root } from './stack.ts';

for (const project of ['tsconfig.json', 'web/tsconfig.json']) {
  execFileSync('npx', ['tsc', '-p', project], { cwd: root, stdio: 'inherit' });
}
