-- A batch of holds writes each owner's account row once (docs/adr/0071-a-burst-of-new-visitors-does-not-queue.md).
-- hold_credit read the account and raised its reservedCredit once per hold, under the lock the batch
-- takes first: a burst of first messages to one owner's chatbot (a batch of up to 100 holds) wrote
-- that one row up to 100 times in one transaction, each new version read back by the next hold. Now
-- each owner's available credit is read once, when its row is locked, and counted down in the
-- function as the batch holds; reservedCredit is raised once per owner, by the batch's sum, after
-- the last hold. The outcomes, their order and every check are unchanged; a model's price is read
-- once for a run of holds of the same model.

CREATE OR REPLACE FUNCTION hold_credit(holds jsonb, ttl_ms bigint)
RETURNS TABLE (o_request_id text, o_outcome text, o_amount numeric, o_input_price numeric, o_output_price numeric)
LANGUAGE plpgsql AS $$
DECLARE
  h record;
  priced_model text;
  -- The price of priced_model (dollars per million tokens); null: it has none.
  input_price numeric;
  output_price numeric;
  open_hold record;
  today date := (now() AT TIME ZONE 'UTC')::date;
  spent_today numeric;
  -- Each locked owner's balance less what is held, counted down by this batch's holds: {userId: amount}.
  available jsonb;
  left_over numeric;
  -- What this batch held per owner, added to reservedCredit once at the end: {userId: amount}.
  held jsonb := '{}';
BEGIN
  SELECT coalesce(jsonb_object_agg(a."userId", a.available), '{}') INTO available
    FROM (SELECT l."userId", l."creditBalance" - l."reservedCredit" AS available
            FROM "Account" AS l
           WHERE l."userId" IN (SELECT x->>'userId' FROM jsonb_array_elements(holds) AS x)
           ORDER BY l."userId" FOR UPDATE) AS a;
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
    IF priced_model IS DISTINCT FROM h.model THEN
      priced_model := h.model;
      input_price := NULL;
      output_price := NULL;
      SELECT m."inputPricePerMillion", m."outputPricePerMillion" INTO input_price, output_price
        FROM "ModelPrice" AS m WHERE m."modelId" = h.model;
    END IF;
    IF input_price IS NULL THEN
      o_outcome := 'unpriced';
      RETURN NEXT;
      CONTINUE;
    END IF;
    o_input_price := input_price;
    o_output_price := output_price;

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
    left_over := (available->>h.user_id)::numeric;
    IF left_over IS NULL THEN
      o_outcome := 'no-account';
      RETURN NEXT;
      CONTINUE;
    END IF;

    o_amount := coalesce(h.own_key_fee, h.prompt_tokens * input_price * 0.000001 + h.completion_tokens * output_price * 0.000001);
    IF left_over < o_amount AND NOT (h.own_key_fee IS NOT NULL AND o_amount = 0) THEN
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
    available := jsonb_set(available, ARRAY[h.user_id], to_jsonb(left_over - o_amount));
    held := jsonb_set(held, ARRAY[h.user_id], to_jsonb(coalesce((held->>h.user_id)::numeric, 0) + o_amount));
    o_outcome := 'held';
    RETURN NEXT;
  END LOOP;
  UPDATE "Account" AS a SET "reservedCredit" = a."reservedCredit" + s.amount::numeric, "updatedAt" = now()
    FROM jsonb_each_text(held) AS s(user_id, amount)
   WHERE a."userId" = s.user_id;
END;
$$;
