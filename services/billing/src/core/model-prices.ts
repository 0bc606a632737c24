// The model catalogue (services/common/src/models/catalogue.ts) is the source of billing's prices:
// at start, every catalogue model's row of ModelPrice is written (display name, prices) and the
// catalogue's default marked, so the hold and settlement statements keep pricing from that table and
// the usage page and CSV show each model's name. A row of a model the catalogue no longer lists
// stays: a late usage of it is still priced as it was; a usage naming a model with no row at all is
// priced at the default's (settle_usage of the migration "usage_model_details").
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** Writes the catalogue's prices, in one transaction that the service's replicas take in turn. */
export async function syncModelPrices(prisma: PrismaClient, catalogue: ModelCatalogue): Promise<void> {
  const rows = catalogue.models.map((m) => ({
    modelId: m.id,
    displayName: m.displayName,
    inputPricePerMillion: m.inputPricePerMillion,
    outputPricePerMillion: m.outputPricePerMillion,
    isDefault: m.id === catalogue.defaultModel.id,
  }));
  await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('parley.model-prices'))`;
    // The old default is unmarked first: one row at most is the default (a partial unique index).
    await tx.$executeRaw`UPDATE "ModelPrice" SET "isDefault" = false WHERE "isDefault" AND "modelId" <> ${catalogue.defaultModel.id}`;
    await tx.$executeRaw`
      INSERT INTO "ModelPrice" ("modelId", "displayName", "inputPricePerMillion", "outputPricePerMillion", "isDefault")
      SELECT x."modelId", x."displayName", x."inputPricePerMillion", x."outputPricePerMillion", x."isDefault"
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS x("modelId" text, "displayName" text, "inputPricePerMillion" numeric, "outputPricePerMillion" numeric, "isDefault" boolean)
      ON CONFLICT ("modelId") DO UPDATE SET
        "displayName" = excluded."displayName",
        "inputPricePerMillion" = excluded."inputPricePerMillion",
        "outputPricePerMillion" = excluded."outputPricePerMillion",
        "isDefault" = excluded."isDefault"`;
  });
}

/** How long a start whose prices could not be written waits before it tries again. */
export const MODEL_PRICES_RETRY_MS = 5000;

/**
 * Writes the prices at start. When that fails (a schema the migration job has not reached yet, the
 * database away), the service starts all the same, on the prices already written, and tries again
 * every MODEL_PRICES_RETRY_MS until it succeeds; the returned function stops the retries.
 */
export async function startModelPrices(
  prisma: PrismaClient,
  catalogue: ModelCatalogue,
  logger: Pick<Logger, 'warn' | 'info'>,
): Promise<() => void> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async (): Promise<void> => {
    try {
      await syncModelPrices(prisma, catalogue);
      if (timer) logger.info({ catalogue: catalogue.source }, 'model prices written from the catalogue');
    } catch (err) {
      logger.warn({ err: (err as Error).message, retryMs: MODEL_PRICES_RETRY_MS }, 'writing the model prices from the catalogue failed');
      if (!stopped) timer = setTimeout(() => void attempt(), MODEL_PRICES_RETRY_MS).unref();
    }
  };
  await attempt();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
