// CONTRIBUTING.md cannot drift: every `npm ...` command it lists names a script that exists, every file
// it names is in the repository, and it points at nothing outside the repository.
import { describe, expect, it } from 'vitest';
import { exists, read } from './repo.ts';

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

  it('names no path or address outside the repository', () => {
    const text = read('CONTRIBUTING.md');
    expect(text, 'a path that leaves the repository').not.toMatch(/(^|[\s`(])\.\.\//m);
    const addresses = [...text.matchAll(/https?:\/\/[^\s)`'"]+/g)].map((m) => m[0]);
    expect(addresses.filter((a) => !/^https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(a))).toEqual([]);
  });

  const paths = [...read('CONTRIBUTING.md').matchAll(/`((?:docs|services|gateway|web|proto|scripts|test|tools|bench|e2e)\/[^`\s*<>{}]+)`/g)]
    .map((m) => m[1])
    // What a build or an install writes is not in the repository until then.
    .filter((path) => !/(^|\/)(dist|node_modules)(\/|$)/.test(path));

  it('names files of the repository', () => {
    expect(paths.length).toBeGreaterThan(5);
  });

  it.each(paths)('%s exists', (path) => {
    expect(exists(path)).toBe(true);
  });
});
