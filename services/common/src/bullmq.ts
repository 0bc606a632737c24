// BullMQ's classes that the services use at run time, each loaded from its own module of the package
// rather than from the package's index, which also loads every other class, the PostgreSQL backend
// (its SQL functions as one string) and the interface and type modules: about 70 modules and 1.5 MB
// of memory a process (docs/adr/0068-memory-at-rest.md). The package has no `exports` map and its ESM
// build does not resolve in Node, so these are its CommonJS modules, required; the types are the
// package's own. A class here is the very one the package's index exports (one module, loaded once),
// so `instanceof` holds either way. Import the types from 'bullmq' (`import type`), the classes from
// here (tools/lint/config.js refuses a value import of 'bullmq' outside tests).
import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';

const require = createRequire(import.meta.url);

export const Queue = (require('bullmq/dist/cjs/classes/queue.js') as Pick<typeof BullMQ, 'Queue'>).Queue;
export type Queue = BullMQ.Queue;
export const Worker = (require('bullmq/dist/cjs/classes/worker.js') as Pick<typeof BullMQ, 'Worker'>).Worker;
export type Worker = BullMQ.Worker;
export const UnrecoverableError = (
  require('bullmq/dist/cjs/classes/errors/unrecoverable-error.js') as Pick<typeof BullMQ, 'UnrecoverableError'>
).UnrecoverableError;
export type UnrecoverableError = BullMQ.UnrecoverableError;
