// The contracts: Buf lint passes, the committed generated code is exactly what the .proto files
// generate, and no change breaks the previous commit's contracts.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './repo.ts';

const proto = join(root, 'proto');
const buf = (args: string[], cwd = proto) =>
  execFileSync(join(root, 'node_modules/.bin/buf'), args, { cwd, encoding: 'utf8', stdio: 'pipe' });

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (p: string) => {
    for (const f of readdirSync(p)) {
      const full = join(p, f);
      if (statSync(full).isDirectory()) walk(full);
      else out.set(relative(dir, full), readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

describe('proto contracts', () => {
  it('pass buf lint', () => {
    expect(() => buf(['lint'])).not.toThrow();
  });

  it('have committed generated code identical to a fresh generation', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'parley-proto-'));
    try {
      cpSync(proto, scratch, { recursive: true, filter: (src) => !src.includes('node_modules') && !src.endsWith('/gen') });
      buf(['generate'], scratch);
      const fresh = files(join(scratch, 'gen'));
      const committed = files(join(proto, 'gen'));
      expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
      for (const [path, text] of fresh) expect(committed.get(path), `${path} is stale: run "cd proto && npx buf generate"`).toBe(text);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('make no breaking change against the previous commit', () => {
    let previous: string;
    try {
      previous = execFileSync('git', ['rev-parse', '--verify', '-q', 'HEAD~1'], { cwd: root, encoding: 'utf8' }).trim();
    } catch {
      return expect(true).toBe(true); // the first commit has nothing to break
    }
    const hasProto = execFileSync('git', ['ls-tree', '-r', '--name-only', previous, 'proto/parley'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    if (!hasProto) return;
    expect(() => buf(['breaking', '--against', `${root}.git#ref=${previous},subdir=proto`])).not.toThrow();
  });
});
