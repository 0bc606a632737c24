// The architecture floor's edge process: Parley's public chat request as the gateway gets it
// (POST /api/chatbot/public/{uniqueId}/chat, JSON {message, sessionId?, model?}, X-Forwarded-For,
// `Accept: text/event-stream` for a streamed answer), its body parsed and checked, then forwarded
// in a signed call to the chat process, whose answer (JSON, or server-sent events) is passed back
// as it comes.
import { createServer } from 'node:http';
import { announce, BadRequest, readBody, sendJson, signedClient } from './signed-call.ts';

const MAX_MESSAGE_CHARS = 4000;
const MODELS = ['gpt-4o-mini'];

function parseMessage(raw: Buffer): { message: string; sessionId: string | null } {
  let v: { message?: unknown; sessionId?: unknown; model?: unknown };
  try {
    v = JSON.parse(raw.toString('utf8')) as typeof v;
  } catch {
    throw new BadRequest(400, 'Invalid JSON');
  }
  if (!v || typeof v !== 'object') throw new BadRequest(400, 'Message is required');
  const message = typeof v.message === 'string' ? v.message.trim() : '';
  if (!message) throw new BadRequest(400, 'Message is required');
  if (message.length > MAX_MESSAGE_CHARS) throw new BadRequest(400, 'Message is too long (maximum 4,000 characters)');
  if (v.model !== undefined && (typeof v.model !== 'string' || !MODELS.includes(v.model)))
    throw new BadRequest(400, `Unknown model: ${String(v.model).slice(0, 50)}`);
  if (v.sessionId !== undefined && v.sessionId !== null && (typeof v.sessionId !== 'string' || v.sessionId.length > 200))
    throw new BadRequest(400, 'sessionId must be a string of at most 200 characters');
  return { message, sessionId: typeof v.sessionId === 'string' && v.sessionId ? v.sessionId : null };
}

function serve(env: NodeJS.ProcessEnv): void {
  const chat = signedClient('edge', env.FLOOR_CHAT_URL!, env.FLOOR_SECRET!);
  const server = createServer((req, res) => {
    const uniqueId = /^\/api\/chatbot\/public\/([\w-]{1,64})\/chat$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || !uniqueId) return sendJson(res, 404, { message: 'Not found' });
    const forwarded = req.headers['x-forwarded-for'];
    const ip = (typeof forwarded === 'string' ? forwarded.split(',')[0].trim() : '') || req.socket.remoteAddress || '';
    const stream = /\btext\/event-stream\b/.test(req.headers.accept ?? '');
    readBody(req)
      .then(async (body) => {
        const { message, sessionId } = parseMessage(body);
        const answer = await chat.post('/answer', { uniqueId, message, sessionId, ip: ip.slice(0, 64), stream });
        const headers: Record<string, string> = { 'content-type': answer.headers['content-type'] ?? 'application/json' };
        if (answer.headers['content-length']) headers['content-length'] = answer.headers['content-length'];
        else headers['cache-control'] = 'no-cache';
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
        res.on('close', () => {
          if (!res.writableFinished) answer.destroy();
        });
      })
      .catch((err: Error) => {
        if (res.headersSent) return res.destroy();
        sendJson(res, err instanceof BadRequest ? err.status : 503, {
          message: err instanceof BadRequest ? err.message : 'The chatbot cannot answer right now',
        });
      });
  });
  announce(server, async () => chat.close());
}

if (process.env.FLOOR_SERVE === '1') serve(process.env);
