// The architecture floor's billing process: the credit hold (one conditional UPDATE that cannot take
// a balance below zero, with the hold's row, in one statement committed synchronously) answered to
// the chat process's signed calls, and a consumer of the usage stream that settles up to
// SETTLE_BATCH events in one statement (usage rows keyed by request id, the exact cost debited, the
// holds released). Money rules (prices, the worst case held) live here only, as in Parley (ADR 22).
// A batch acknowledged after its statement commits is applied again, to no effect, if the process
// dies in between; entries a dead consumer had read are not claimed by another (one consumer here).
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';
import { announce, BadRequest, readBody, sendJson, verifySigned } from './signed-call.ts';

/** gpt-4o-mini's prices (0.15 and 0.60 dollars per million tokens), per token. */
const PRICE_IN = '0.00000015';
const PRICE_OUT = '0.0000006';
const SETTLE_BATCH = 100;
export const USAGE_GROUP = 'billing';

// The worst case held: the prompt's tokens as estimated and every answer token the call allows.
const HOLD = `
  WITH held AS (
    UPDATE billing.account SET balance = balance - ($3::int * ${PRICE_IN} + $4::int * ${PRICE_OUT})
     WHERE owner_id = $2 AND balance >= $3::int * ${PRICE_IN} + $4::int * ${PRICE_OUT}
    RETURNING owner_id)
  INSERT INTO billing.hold (request_id, owner_id, amount)
  SELECT $1, owner_id, $3::int * ${PRICE_IN} + $4::int * ${PRICE_OUT} FROM held
  RETURNING request_id`;

// A batch of usage events: each recorded once (a replayed event changes nothing), its hold released
// and the difference between the hold and the exact cost given back (the whole cost taken when the
// hold is already gone).
const SETTLE = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::int[], $5::int[], $6::timestamptz[])
      AS i(request_id, owner_id, chatbot_id, prompt_tokens, completion_tokens, occurred_at)),
  recorded AS (
    INSERT INTO billing.usage (request_id, owner_id, chatbot_id, prompt_tokens, completion_tokens, cost, occurred_at)
    SELECT request_id, owner_id, chatbot_id, prompt_tokens, completion_tokens,
           prompt_tokens * ${PRICE_IN} + completion_tokens * ${PRICE_OUT}, occurred_at FROM input
    ON CONFLICT (request_id) DO NOTHING
    RETURNING request_id, owner_id, cost),
  released AS (
    DELETE FROM billing.hold h USING recorded r WHERE h.request_id = r.request_id RETURNING h.request_id, h.amount),
  change AS (
    SELECT r.owner_id, sum(coalesce(x.amount, 0) - r.cost) AS back
      FROM recorded r LEFT JOIN released x USING (request_id) GROUP BY r.owner_id)
  UPDATE billing.account a SET balance = a.balance + c.back FROM change c WHERE a.owner_id = c.owner_id`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REQUEST_ID = /^[\w-]{1,100}$/;
const tokens = (v: unknown, max: number): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;

interface HoldInput {
  requestId: string;
  ownerId: string;
  promptTokens: number;
  maxTokens: number;
}
function parseHold(raw: Buffer): HoldInput {
  let v: Partial<HoldInput>;
  try {
    v = JSON.parse(raw.toString('utf8')) as Partial<HoldInput>;
  } catch {
    throw new BadRequest(400, 'Invalid JSON');
  }
  if (typeof v.requestId !== 'string' || !REQUEST_ID.test(v.requestId)) throw new BadRequest(400, 'requestId is required');
  if (typeof v.ownerId !== 'string' || !UUID.test(v.ownerId)) throw new BadRequest(400, 'ownerId must be a UUID');
  if (!tokens(v.promptTokens, 1_000_000) || !tokens(v.maxTokens, 100_000)) throw new BadRequest(400, 'Token counts out of bounds');
  return v as HoldInput;
}

/** One usage event as the chat process adds it to the stream; null for an entry that is not one. */
export interface UsageEvent {
  requestId: string;
  ownerId: string;
  chatbotId: string;
  promptTokens: number;
  completionTokens: number;
  occurredAt: string;
}
function parseUsage(fields: string[]): UsageEvent | null {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  const [promptTokens, completionTokens] = [Number(f.promptTokens), Number(f.completionTokens)];
  if (!REQUEST_ID.test(f.requestId ?? '') || !UUID.test(f.ownerId ?? '') || !UUID.test(f.chatbotId ?? '')) return null;
  if (!tokens(promptTokens, 1_000_000) || !tokens(completionTokens, 100_000) || Number.isNaN(Date.parse(f.occurredAt ?? ''))) return null;
  return { requestId: f.requestId, ownerId: f.ownerId, chatbotId: f.chatbotId, promptTokens, completionTokens, occurredAt: f.occurredAt };
}

async function serve(env: NodeJS.ProcessEnv): Promise<void> {
  const secret = env.FLOOR_SECRET!;
  const stream = `${env.FLOOR_KEY_PREFIX}:usage`;
  const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: 10 });
  const redis = new Redis(env.FLOOR_REDIS_URL!);
  // XREADGROUP blocks its connection: one of its own.
  const reader = new Redis(env.FLOOR_REDIS_URL!);
  await redis.xgroup('CREATE', stream, USAGE_GROUP, '0', 'MKSTREAM').catch((err: Error) => {
    if (!err.message.includes('BUSYGROUP')) throw err;
  });

  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/hold') return sendJson(res, 404, { message: 'Not found' });
    readBody(req)
      .then(async (body) => {
        verifySigned(req, body, secret, ['chat']);
        const hold = parseHold(body);
        const { rowCount } = await pool.query(HOLD, [hold.requestId, hold.ownerId, hold.promptTokens, hold.maxTokens]);
        sendJson(res, rowCount === 1 ? 200 : 402, rowCount === 1 ? { held: true } : { message: 'Not enough credit' });
      })
      .catch((err: Error) => sendJson(res, err instanceof BadRequest ? err.status : 500, { message: err.message }));
  });

  let stopping = false;
  async function settleLoop(): Promise<void> {
    while (!stopping) {
      const read = (await reader.xreadgroup(
        'GROUP',
        USAGE_GROUP,
        'billing-1',
        'COUNT',
        SETTLE_BATCH,
        'BLOCK',
        1000,
        'STREAMS',
        stream,
        '>',
      )) as [string, [string, string[]][]][] | null;
      const entries = read?.[0]?.[1] ?? [];
      if (!entries.length) continue;
      const events = entries.map(([, fields]) => parseUsage(fields)).filter((e): e is UsageEvent => e !== null);
      if (events.length < entries.length) console.error(`billing: ${entries.length - events.length} malformed usage entries dropped`);
      if (events.length)
        await pool.query(SETTLE, [
          events.map((e) => e.requestId),
          events.map((e) => e.ownerId),
          events.map((e) => e.chatbotId),
          events.map((e) => e.promptTokens),
          events.map((e) => e.completionTokens),
          events.map((e) => e.occurredAt),
        ]);
      const ids = entries.map(([id]) => id);
      await redis
        .multi()
        .xack(stream, USAGE_GROUP, ...ids)
        .xdel(stream, ...ids)
        .exec();
    }
  }
  const settling = settleLoop().catch((err: Error) => {
    console.error(`billing: settling failed: ${err.message}`);
    process.exit(1);
  });

  announce(server, async () => {
    stopping = true;
    await settling;
    await Promise.all([pool.end(), redis.quit(), reader.quit()]);
  });
}

if (process.env.FLOOR_SERVE === '1') await serve(process.env);
