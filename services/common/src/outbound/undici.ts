// undici (≈ 110 modules, ≈ 5 MB of a process's heap once loaded) is required at the first outbound
// request, not when a process starts: the chatbot service's webhooks, web pages, actions and MCP
// servers, and auth's single sign-on, all send through it, and a process at rest sends nothing
// (docs/adr/0068-memory-at-rest.md). A synchronous require (undici is a CommonJS
// package), so the guard's agent is still built where it is asked for.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
let loaded: typeof Undici | undefined;

export const undici = (): typeof Undici => (loaded ??= require('undici') as typeof Undici);
