-- Usage through the developer API (docs/adr/0033-developer-api.md) is attributed to the key it came
-- through: each usage record names the key (auth's id, no foreign key: auth owns keys, and usage
-- outlives a revoked one), null for the public chat. settle_usage is the same statement, now also
-- writing the key from each usage's "apiKeyId" (absent: null).

ALTER TABLE "UsageRecord" ADD COLUMN "apiKeyId" TEXT;

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
                                          "apiKeyId" text)
     ORDER BY x."requestId"
  ), inserted AS (
    INSERT INTO "UsageRecord" ("id", "requestId", "userId", "chatbotId", "chatbotName", "model",
      "promptTokens", "completionTokens", "totalTokens", "promptCost", "completionCost", "totalCost", "occurredAt", "apiKeyId")
    SELECT gen_random_uuid(), g."requestId", g."userId", g."chatbotId", g."chatbotName", p."modelId",
      g."promptTokens", g."completionTokens", g."promptTokens" + g."completionTokens",
      g."promptTokens" * p."inputPricePerMillion" * 0.000001,
      g."completionTokens" * p."outputPricePerMillion" * 0.000001,
      g."promptTokens" * p."inputPricePerMillion" * 0.000001 + g."completionTokens" * p."outputPricePerMillion" * 0.000001,
      g."occurredAt", g."apiKeyId"
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
