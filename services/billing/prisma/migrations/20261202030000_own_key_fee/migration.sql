-- An answer given on the workspace's own provider key (docs/adr/0043-own-provider-keys.md) costs the
-- operator's OWN_KEY_PLATFORM_FEE, not the model's price. hold_credit takes an "ownKeyFee" per hold
-- (absent or null: the model's price as before): the hold is that fee, and a zero hold is made
-- whatever the owner's balance (it holds nothing, but keeps the request id's hold, its chatbot's day
-- and the daily spend limit's check: once the chatbot's spend today reached its limit, it answers on
-- no key). settle_usage takes an "ownKeyFee" per usage: an own-key record costs that fee (as its
-- completion cost; its prompt cost 0), debited, counted in the chatbot's spend today and settling
-- its hold as any other.

CREATE OR REPLACE FUNCTION hold_credit(holds jsonb, ttl_ms bigint)
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
           x->>'chatbotId' AS chatbot_id, (x->>'dailySpendLimit')::numeric AS spend_limit,
           (x->>'ownKeyFee')::numeric AS own_key_fee
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

    o_amount := coalesce(h.own_key_fee, h.prompt_tokens * price.input * 0.000001 + h.completion_tokens * price.output * 0.000001);
    IF acct.available < o_amount AND NOT (h.own_key_fee IS NOT NULL AND o_amount = 0) THEN
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

CREATE OR REPLACE FUNCTION settle_usage(usages jsonb)
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
                                          "promptTokens" integer, "completionTokens" integer, "occurredAt" timestamptz,
                                          "apiKeyId" text, "provider" text, "cachedPromptTokens" integer, "reasoningTokens" integer,
                                          "ownKey" boolean, "fallback" boolean, "ownKeyFee" numeric)
     ORDER BY x."requestId"
  ), priced AS (
    SELECT g.*, coalesce(own."modelId", def."modelId") AS "priceModel", own."modelId" IS NULL AS "defaulted"
      FROM given AS g
      LEFT JOIN "ModelPrice" AS own ON own."modelId" = g."model"
      LEFT JOIN "ModelPrice" AS def ON def."isDefault"
  ), inserted AS (
    INSERT INTO "UsageRecord" ("id", "requestId", "userId", "chatbotId", "chatbotName", "model",
      "promptTokens", "completionTokens", "totalTokens", "promptCost", "completionCost", "totalCost", "occurredAt", "apiKeyId",
      "provider", "cachedPromptTokens", "reasoningTokens", "ownKey", "fallback")
    SELECT gen_random_uuid(), g."requestId", g."userId", g."chatbotId", g."chatbotName", g."model",
      g."promptTokens", g."completionTokens", g."promptTokens" + g."completionTokens",
      CASE WHEN g."ownKey" THEN 0 ELSE g."promptTokens" * p."inputPricePerMillion" * 0.000001 END,
      CASE WHEN g."ownKey" THEN coalesce(g."ownKeyFee", 0) ELSE g."completionTokens" * p."outputPricePerMillion" * 0.000001 END,
      CASE WHEN g."ownKey" THEN coalesce(g."ownKeyFee", 0)
           ELSE g."promptTokens" * p."inputPricePerMillion" * 0.000001 + g."completionTokens" * p."outputPricePerMillion" * 0.000001 END,
      g."occurredAt", g."apiKeyId",
      coalesce(nullif(g."provider", ''), 'openai'), coalesce(g."cachedPromptTokens", 0), coalesce(g."reasoningTokens", 0),
      coalesce(g."ownKey", false), coalesce(g."fallback", false)
    FROM priced AS g JOIN "ModelPrice" AS p ON p."modelId" = g."priceModel"
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
         CASE WHEN EXISTS (SELECT 1 FROM inserted AS i WHERE i."requestId" = g."requestId")
                THEN CASE WHEN g."defaulted" THEN 'defaulted' ELSE 'recorded' END
              WHEN g."priceModel" IS NULL THEN 'unpriced'
              WHEN NOT EXISTS (SELECT 1 FROM "Account" AS a WHERE a."userId" = g."userId") THEN 'no-account'
              ELSE 'duplicate' END
    FROM priced AS g;
END;
$$;
