// Reading an uploaded file's text without risking the service: each parse runs in a worker thread
// of its own (parse-worker.ts) whose heap is capped by resourceLimits, whose ArrayBuffers (which
// resourceLimits does not count) are watched from here, and which is stopped after timeoutMs.
// The main thread never touches the file's content.
import { Worker } from 'node:worker_threads';
import type { ParsedFile, ParseReply, ParseRequest } from './parse-worker.ts';
import { FILE_ERRORS, SourceError } from './source-error.ts';

export type { ParsedFile } from './parse-worker.ts';

export interface ParseBounds {
  timeoutMs: number;
  memoryMb: number;
  /** Longest text kept, in characters (MAX_DOCUMENT_CHARS). */
  maxChars: number;
}

const WORKER_URL = new URL('./parse-worker.ts', import.meta.url);
/** How often the worker's ArrayBuffer memory is checked (the check interrupts even a busy worker). */
const MEMORY_POLL_MS = 25;

export function parseFile(content: Uint8Array, fileName: string, bounds: ParseBounds): Promise<ParsedFile> {
  // A view into a larger buffer would be copied whole into the worker: copy just the file.
  const bytes = content.byteLength === content.buffer.byteLength ? content : content.slice();
  const request: ParseRequest = { parleyParseFile: true, content: bytes, fileName, maxChars: bounds.maxChars, memoryMb: bounds.memoryMb };
  const worker = new Worker(WORKER_URL, {
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: bounds.memoryMb, maxYoungGenerationSizeMb: Math.min(16, Math.ceil(bounds.memoryMb / 8)) },
  });
  return new Promise<ParsedFile>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      void worker.terminate();
      outcome();
    };
    const fail = (message: string) => settle(() => reject(new SourceError(message)));
    const timer = setTimeout(() => fail(FILE_ERRORS.tooSlow), bounds.timeoutMs);
    const poll = setInterval(() => {
      worker.getHeapStatistics().then(
        (stats) => stats.external_memory > bounds.memoryMb * 1024 * 1024 && fail(FILE_ERRORS.tooMuchMemory),
        () => {}, // not started yet, or already gone: the events below settle
      );
    }, MEMORY_POLL_MS);
    worker.on('message', (reply: ParseReply) => {
      if (reply.ok) settle(() => resolve({ title: reply.title, text: reply.text }));
      else if (reply.sourceError) fail(reply.message);
      else settle(() => reject(new Error(`Parsing ${JSON.stringify(fileName)} failed: ${reply.message}`)));
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') fail(FILE_ERRORS.tooMuchMemory);
      else settle(() => reject(error));
    });
    worker.on('exit', (code) => settle(() => reject(new Error(`The parse worker stopped before answering (exit code ${code})`))));
  });
}
