-- A hold whose answer never reported back is settled from the stored exchange when there is one
-- (docs/adr/0037-answers-billed-when-a-process-dies.md): the chat service lists the expired holds
-- (ListExpiredHolds), publishes the UsageRecorded of those whose exchange it stored and releases the
-- rest. The sweep therefore releases a hold only once it has been expired for a grace period more,
-- for when no chat service reconciled it (none ran meanwhile).
DROP FUNCTION sweep_credit_holds();

CREATE FUNCTION sweep_credit_holds(grace_ms bigint)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  released integer;
  cutoff timestamptz := now() - make_interval(secs => grace_ms / 1000.0);
BEGIN
  PERFORM 1 FROM "Account" AS a
   WHERE a."userId" IN (SELECT r."userId" FROM "CreditReservation" AS r WHERE r."expiresAt" <= cutoff)
   ORDER BY a."userId" FOR UPDATE;
  WITH expired AS (
    DELETE FROM "CreditReservation" WHERE "requestId" IN (
      SELECT r."requestId" FROM "CreditReservation" AS r WHERE r."expiresAt" <= cutoff FOR UPDATE SKIP LOCKED
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
