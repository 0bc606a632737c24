// CONTRIBUTING.md cannot drift: every `npm ...` command it lists names a script that exists.
import { describe, expect, it } from 'vitest';
import { read } from './repo.ts';

const rootPkg = JSON.parse(read('package.json'));
const workspaces = new Map<string, Record<string, string>>(
  (rootPkg.workspaces as string[]).map((w) => {
    const pkg = JSON.parse(read(`${w}/package.json`));
    return [pkg.name, pkg.scripts ?? {}];
  }),
);
const commands = [...read('CONTRIBUTING.md').matchAll(/`(npm (?:start|test|run [^\s`]+)[^`]*)`/g)].map((m) => m[1]);

describe('CONTRIBUTING.md', () => {
  it('lists commands', () => {
    expect(commands.length).toBeGreaterThan(10);
  });

  it.each(commands)('%s names a real script', (command) => {
    const words = command.split(/\s+/);
    const script = words[1] === 'run' ? words[2] : words[1];
    const w = words.indexOf('-w');
    const scripts = w > 0 ? workspaces.get(words[w + 1]) : rootPkg.scripts;
    expect(scripts, `workspace ${words[w + 1]}`).toBeDefined();
    expect(Object.keys(scripts!)).toContain(script);
  });

  it('documents the flags the test runner accepts', () => {
    const runner = read('scripts/test.ts');
    for (const flag of ['--no-e2e', '--e2e']) expect(runner).toContain(`'${flag}'`);
  });
});
