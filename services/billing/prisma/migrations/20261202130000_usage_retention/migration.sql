-- Usage detail retention (docs/adr/0059-retention-in-every-service.md): a workspace's window for its
-- per-message usage records, swept every hour. The sweep deletes "UsageRecord" rows only; the daily
-- totals, balances and the credit ledger stay.
CREATE TABLE "UsageRetention" (
    "ownerId" TEXT NOT NULL,
    "usageDetailDays" INTEGER,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "UsageRetention_pkey" PRIMARY KEY ("ownerId")
);

-- The usage record's request id was settle_usage's only idempotency key. Once a swept record is gone,
-- a redelivered UsageRecorded event must still not debit again: a usage whose ledger entry
-- (reference usage:<requestId>, kept forever) exists is a duplicate, as before the sweep.
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
      AND NOT EXISTS (SELECT 1 FROM "CreditLedgerEntry" AS l WHERE l."reference" = 'usage:' || g."requestId")
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
