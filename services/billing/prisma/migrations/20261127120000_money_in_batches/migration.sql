-- Money decided by billing alone, in batches (docs/adr/0022-money-in-batches.md):
--   * a hold also counts against its chatbot's spend today (the chatbot's daily spend limit), so
--     each hold names its chatbot and its UTC day;
--   * the statements that move money are functions, each ONE round trip for a whole batch, and each
--     locks the owners' account rows first, in userId order: every writer of an owner's money queues
--     on that one lock (never deadlocking with another), and every statement after it reads what
--     the writers before it committed (PL/pgSQL takes a new snapshot per statement).

ALTER TABLE "CreditReservation" ADD COLUMN "chatbotId" TEXT, ADD COLUMN "day" DATE;
CREATE INDEX "CreditReservation_chatbotId_day_idx" ON "CreditReservation"("chatbotId", "day");

-- Holds for a batch of answers, in the order given. `holds`: a JSON array of {requestId, userId,
-- model, maxPromptTokens, maxCompletionTokens, chatbotId, dailySpendLimit (null: none)}. Each hold
-- is the answer's largest cost at the model's price; it is made only while the owner's balance minus
-- what is already held covers it and, with a limit, while the chatbot's spend today (UsageDaily)
-- plus its open holds of today plus this one stays within the limit. Outcomes: held, existing (an
-- open hold of the owner's under this request id: its amount), answered (its usage was recorded),
-- conflict (another owner's hold has the id), no-account, unpriced, no-credit, spend-limit.
CREATE FUNCTION hold_credit(holds jsonb, ttl_ms bigint)
RETURNS TABLE (o_request_id text, o_outcome text, o_amount numeric, o_input_price numeric, o_output_price numeric)
LANGUAGE plpgsql AS $$
DECLARE
  h record;
  price record;
  acct record;
  open_hold record;
  today date := (now() AT TIME ZONE 'UTC')::date;
  spent_today numeric;
BEGIN
  PERFORM 1 FROM "Account" AS a
   WHERE a."userId" IN (SELECT x->>'userId' FROM jsonb_array_elements(holds) AS x)
   ORDER BY a."userId" FOR UPDATE;
  FOR h IN
    SELECT x->>'requestId' AS request_id, x->>'userId' AS user_id, x->>'model' AS model,
           (x->>'maxPromptTokens')::numeric AS prompt_tokens, (x->>'maxCompletionTokens')::numeric AS completion_tokens,
           x->>'chatbotId' AS chatbot_id, (x->>'dailySpendLimit')::numeric AS spend_limit
      FROM jsonb_array_elements(holds) WITH ORDINALITY AS t(x, n) ORDER BY t.n
  LOOP
    o_request_id := h.request_id;
    o_amount := NULL;
    o_input_price := NULL;
    o_output_price := NULL;
    SELECT m."inputPricePerMillion" AS input, m."outputPricePerMillion" AS output INTO price
      FROM "ModelPrice" AS m WHERE m."modelId" = h.model;
    IF NOT FOUND THEN
      o_outcome := 'unpriced';
      RETURN NEXT;
      CONTINUE;
    END IF;
    o_input_price := price.input;
    o_output_price := price.output;

    SELECT r."amount", r."userId" INTO open_hold FROM "CreditReservation" AS r WHERE r."requestId" = h.request_id;
    IF FOUND THEN
      o_outcome := CASE WHEN open_hold."userId" = h.user_id THEN 'existing' ELSE 'conflict' END;
      o_amount := CASE WHEN open_hold."userId" = h.user_id THEN open_hold."amount" END;
      RETURN NEXT;
      CONTINUE;
    END IF;
    IF EXISTS (SELECT 1 FROM "UsageRecord" AS u WHERE u."requestId" = h.request_id) THEN
      o_outcome := 'answered';
      RETURN NEXT;
      CONTINUE;
    END IF;
    SELECT a."creditBalance" - a."reservedCredit" AS available INTO acct FROM "Account" AS a WHERE a."userId" = h.user_id;
    IF NOT FOUND THEN
      o_outcome := 'no-account';
      RETURN NEXT;
      CONTINUE;
    END IF;

    o_amount := h.prompt_tokens * price.input * 0.000001 + h.completion_tokens * price.output * 0.000001;
    IF acct.available < o_amount THEN
      o_outcome := 'no-credit';
      o_amount := NULL;
      RETURN NEXT;
      CONTINUE;
    END IF;
    IF h.spend_limit IS NOT NULL THEN
      SELECT coalesce(sum(d."promptCost" + d."completionCost"), 0) INTO spent_today
        FROM "UsageDaily" AS d WHERE d."userId" = h.user_id AND d."day" = today AND d."chatbotId" = h.chatbot_id;
      spent_today := spent_today + coalesce(
        (SELECT sum(r."amount") FROM "CreditReservation" AS r WHERE r."chatbotId" = h.chatbot_id AND r."day" = today), 0);
      IF spent_today + o_amount > h.spend_limit THEN
        o_outcome := 'spend-limit';
        o_amount := NULL;
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;

    -- A concurrent hold of another owner under the same request id: nothing inserted, a conflict.
    INSERT INTO "CreditReservation" ("requestId", "userId", "amount", "expiresAt", "chatbotId", "day")
    VALUES (h.request_id, h.user_id, o_amount, now() + ttl_ms * interval '1 millisecond', h.chatbot_id, today)
    ON CONFLICT ("requestId") DO NOTHING;
    IF NOT FOUND THEN
      o_outcome := 'conflict';
      o_amount := NULL;
      RETURN NEXT;
      CONTINUE;
    END IF;
    UPDATE "Account" AS a SET "reservedCredit" = a."reservedCredit" + o_amount, "updatedAt" = now() WHERE a."userId" = h.user_id;
    o_outcome := 'held';
    RETURN NEXT;
  END LOOP;
END;
$$;

-- Records a batch of answered messages' usage and pays for it, each request id once however often
-- it is given (in the batch, or again later): the usage record costed from the model's price, its
-- day in UsageDaily, the settlement of its hold (deleted, reservedCredit lowered by it), the debit
-- and its ledger entry. `usages`: a JSON array of {requestId, userId, chatbotId, chatbotName, model,
-- promptTokens, completionTokens, occurredAt}. Outcomes per request id: recorded, duplicate,
-- no-account (nothing written: the caller opens the account), unpriced (nothing written).
--
-- Costs are NUMERIC: integer tokens × a price with 4 decimals × 0.000001 is exact at 10 decimals.
-- The balance may go negative: the answer was already given and must be paid for.
CREATE FUNCTION settle_usage(usages jsonb)
RETURNS TABLE (o_request_id text, o_outcome text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "Account" AS a
   WHERE a."userId" IN (SELECT x->>'userId' FROM jsonb_array_elements(usages) AS x)
   ORDER BY a."userId" FOR UPDATE;
  RETURN QUERY
  WITH given AS (
    SELECT DISTINCT ON (x."requestId") x.*
      FROM jsonb_to_recordset(usages) AS x("requestId" text, "userId" text, "chatbotId" text, "chatbotName" text, "model" text,
                                          "promptTokens" integer, "completionTokens" integer, "occurredAt" timestamptz)
     ORDER BY x."requestId"
  ), inserted AS (
    INSERT INTO "UsageRecord" ("id", "requestId", "userId", "chatbotId", "chatbotName", "model",
      "promptTokens", "completionTokens", "totalTokens", "promptCost", "completionCost", "totalCost", "occurredAt")
    SELECT gen_random_uuid(), g."requestId", g."userId", g."chatbotId", g."chatbotName", p."modelId",
      g."promptTokens", g."completionTokens", g."promptTokens" + g."completionTokens",
      g."promptTokens" * p."inputPricePerMillion" * 0.000001,
      g."completionTokens" * p."outputPricePerMillion" * 0.000001,
      g."promptTokens" * p."inputPricePerMillion" * 0.000001 + g."completionTokens" * p."outputPricePerMillion" * 0.000001,
      g."occurredAt"
    FROM given AS g JOIN "ModelPrice" AS p ON p."modelId" = g."model"
    WHERE EXISTS (SELECT 1 FROM "Account" AS a WHERE a."userId" = g."userId")
    ON CONFLICT ("requestId") DO NOTHING
    RETURNING "requestId", "userId", "chatbotId", "promptTokens", "completionTokens", "promptCost", "completionCost", "totalCost", "occurredAt"
  ), daily AS (
    INSERT INTO "UsageDaily" AS d ("userId", "chatbotId", "day", "requestCount", "promptTokens", "completionTokens", "promptCost", "completionCost")
    SELECT i."userId", i."chatbotId", (i."occurredAt" AT TIME ZONE 'UTC')::date, count(*), sum(i."promptTokens"), sum(i."completionTokens"),
           sum(i."promptCost"), sum(i."completionCost")
      FROM inserted AS i GROUP BY 1, 2, 3
    ON CONFLICT ("userId", "day", "chatbotId") DO UPDATE SET
      "requestCount" = d."requestCount" + excluded."requestCount",
      "promptTokens" = d."promptTokens" + excluded."promptTokens",
      "completionTokens" = d."completionTokens" + excluded."completionTokens",
      "promptCost" = d."promptCost" + excluded."promptCost",
      "completionCost" = d."completionCost" + excluded."completionCost"
  ), settled AS (
    DELETE FROM "CreditReservation" AS r USING inserted AS i
     WHERE r."requestId" = i."requestId" AND r."userId" = i."userId"
    RETURNING r."userId", r."amount"
  ), debited AS (
    UPDATE "Account" AS a SET "creditBalance" = a."creditBalance" - o.cost,
           "reservedCredit" = a."reservedCredit" - coalesce((SELECT sum(s."amount") FROM settled AS s WHERE s."userId" = o."userId"), 0),
           "updatedAt" = now()
      FROM (SELECT i."userId", sum(i."totalCost") AS cost FROM inserted AS i GROUP BY 1) AS o
     WHERE a."userId" = o."userId"
  ), ledger AS (
    INSERT INTO "CreditLedgerEntry" ("id", "userId", "amount", "reason", "reference")
    SELECT gen_random_uuid(), i."userId", -i."totalCost", 'usage', 'usage:' || i."requestId" FROM inserted AS i
  )
  SELECT g."requestId",
         CASE WHEN EXISTS (SELECT 1 FROM inserted AS i WHERE i."requestId" = g."requestId") THEN 'recorded'
              WHEN NOT EXISTS (SELECT 1 FROM "ModelPrice" AS p WHERE p."modelId" = g."model") THEN 'unpriced'
              WHEN NOT EXISTS (SELECT 1 FROM "Account" AS a WHERE a."userId" = g."userId") THEN 'no-account'
              ELSE 'duplicate' END
    FROM given AS g;
END;
$$;

-- Releases the hold of an answer that was not given: deleted, and the owner's reservedCredit lowered
-- by its amount; false when there is no open hold under this request id (never held, released,
-- swept or settled). The owner's account row is locked first, as every writer of money does.
CREATE FUNCTION release_credit(request_id text)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  owner text;
  released numeric;
BEGIN
  SELECT r."userId" INTO owner FROM "CreditReservation" AS r WHERE r."requestId" = request_id;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  PERFORM 1 FROM "Account" AS a WHERE a."userId" = owner FOR UPDATE;
  DELETE FROM "CreditReservation" AS r WHERE r."requestId" = request_id AND r."userId" = owner RETURNING r."amount" INTO released;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE "Account" AS a SET "reservedCredit" = a."reservedCredit" - released, "updatedAt" = now() WHERE a."userId" = owner;
  RETURN true;
END;
$$;

-- Releases every expired hold (the answer never reported back), lowering each owner's
-- reservedCredit by the sum of theirs; returns how many went. Owners are locked first, in order;
-- holds another statement is deleting right now are skipped (the next sweep takes what is left).
CREATE FUNCTION sweep_credit_holds()
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  released integer;
BEGIN
  PERFORM 1 FROM "Account" AS a
   WHERE a."userId" IN (SELECT r."userId" FROM "CreditReservation" AS r WHERE r."expiresAt" <= now())
   ORDER BY a."userId" FOR UPDATE;
  WITH expired AS (
    DELETE FROM "CreditReservation" WHERE "requestId" IN (
      SELECT r."requestId" FROM "CreditReservation" AS r WHERE r."expiresAt" <= now() FOR UPDATE SKIP LOCKED
    )
    RETURNING "userId", "amount"
  ), per_owner AS (
    SELECT e."userId", sum(e."amount") AS amount FROM expired AS e GROUP BY 1
  ), lowered AS (
    UPDATE "Account" AS a SET "reservedCredit" = a."reservedCredit" - o.amount, "updatedAt" = now()
      FROM per_owner AS o WHERE a."userId" = o."userId"
  )
  SELECT count(*)::int INTO released FROM expired;
  RETURN released;
END;
$$;
