// The bundle size check (scripts/check-bundle-size.ts) reads the built page's script graph from the
// build's own output: its static and later imports, and the React 19 APIs the page (on preact/compat,
// which lacks them) calls.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynamicImports, pageScripts, react19Calls, staticImports } from '../scripts/check-bundle-size.ts';

const dist = mkdtempSync(join(tmpdir(), 'parley-bundle-'));
afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('the bundle size check', () => {
  it('follows static imports, modulepreloads and import() as the build writes them', () => {
    const code = 'import{a as b}from"./react-X.js";export{c}from"./d.js";const m=()=>import(`./markdown-Y.js`),p=import("./pow.js");';
    expect(staticImports(code)).toEqual(['./react-X.js', './d.js']);
    expect(dynamicImports(code)).toEqual(['./markdown-Y.js', './pow.js']);
    const html = '<script type="module" crossorigin src="/assets/chat-A.js"></script><link rel="modulepreload" href="/assets/react-B.js">';
    expect(pageScripts(html)).toEqual(['assets/chat-A.js', 'assets/react-B.js']);
  });

  it('finds a React 19 API called anywhere the page loads, later too, and nothing in a page without one', () => {
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'chat.html'), '<script type="module" src="/assets/chat-A.js"></script>');
    writeFileSync(join(dist, 'assets/chat-A.js'), 'import{r}from"./react-B.js";(0,r.useState)(0);const l=()=>import(`./late-C.js`);');
    writeFileSync(join(dist, 'assets/react-B.js'), 'export const r={useState(){}};');
    writeFileSync(join(dist, 'assets/late-C.js'), 'import{r}from"./react-B.js";export const f=()=>(0,r.useEffectEvent)(()=>{});');
    expect(react19Calls(dist)).toEqual(['assets/late-C.js: useEffectEvent']);
    writeFileSync(join(dist, 'assets/late-C.js'), 'export const f=()=>0;');
    expect(react19Calls(dist)).toEqual([]);
  });
});
