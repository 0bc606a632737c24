// A chatbot's quality settings (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md):
// whether its runs are judged, by which catalogue model and against which rubric, and whether the
// workspace is mailed when a run has regressions. No row: the defaults.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { OfferedModels } from '../models/offered-models.ts';
import { parseRubric, storedRubric } from './judge.ts';
import { ownedChatbot, type QualityDeps } from './test-cases.ts';

export interface Settings {
  judgeEnabled: boolean;
  /** Empty: the deployment's default model. */
  judgeModelId: string;
  rubric: string[];
  emailOnRegression: boolean;
}

export const JUDGE_MODEL_UNKNOWN = 'Choose one of the offered models for the judge.';

export async function settingsOf(db: PrismaClient, chatbotId: string): Promise<Settings> {
  const row = await db.qualitySettings.findUnique({ where: { chatbotId } });
  return {
    judgeEnabled: row?.judgeEnabled ?? false,
    judgeModelId: row?.judgeModel ?? '',
    rubric: storedRubric(row?.rubric),
    emailOnRegression: row?.emailOnRegression ?? false,
  };
}

export async function getQualitySettings(deps: QualityDeps, input: { ownerId: string; chatbotId: string }): Promise<Settings> {
  const bot = await ownedChatbot(deps, input);
  return settingsOf(deps.db, bot.id);
}

export async function saveQualitySettings(
  deps: QualityDeps & { offered: Pick<OfferedModels, 'find'> },
  input: { ownerId: string; chatbotId: string; settings?: Partial<Settings> },
): Promise<Settings> {
  const bot = await ownedChatbot(deps, input);
  const raw = input.settings ?? {};
  const judgeModelId = (raw.judgeModelId ?? '').trim();
  if (judgeModelId && !deps.offered.find(judgeModelId)) throw invalid(JUDGE_MODEL_UNKNOWN);
  const data = {
    judgeEnabled: raw.judgeEnabled ?? false,
    judgeModel: judgeModelId,
    rubric: parseRubric(raw.rubric ?? []),
    emailOnRegression: raw.emailOnRegression ?? false,
  };
  await deps.db.qualitySettings.upsert({
    where: { chatbotId: bot.id },
    create: { ...data, chatbotId: bot.id, ownerId: bot.ownerId },
    update: data,
  });
  return settingsOf(deps.db, bot.id);
}
