// One test case answered as a visitor's message is (docs/adr/0050-quality-loop.md): the turn itself
// (public-chat/send-message.ts) on the test-run channel, so the same prompt building, retrieval, Q&A
// pairs, model router, credit hold and billing apply, and no rate limit nor visitor's day counts
// it. Its recorder is the run's own: the model's usage goes to billing as UsageRecorded (which
// settles the hold at the model's exact price), and nothing else is written (no conversation, no
// analytics, no kept turns); the answer comes back to be stored with the run.
import { Prisma } from '../generated/prisma/client.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import { testRun } from '../public-chat/channels/test-run.ts';
import { billedUsage, type Recorder } from '../public-chat/recorder.ts';
import { sendMessage, type PublicChatDeps } from '../public-chat/send-message.ts';
import type { Source } from '../public-chat/citations.ts';
import type { Usage } from '../usage/publishers.ts';
import { draftContext, type Draft } from './draft.ts';

export interface CaseToAnswer {
  uniqueId: string;
  question: string;
  earlierTurns: { role: 'user' | 'assistant'; content: string }[];
  /** A side by side's draft: the case answered with the draft's settings rather than the chatbot's. */
  draft?: Draft | null;
}

export interface CaseAnswer {
  requestId: string;
  text: string;
  sources: Source[];
  unanswered: boolean;
  offerHandoff: boolean;
  promptTokens: number;
  completionTokens: number;
  /** Exact dollars at the answering model's catalogue price (what billing debits); 0 without a model or on the workspace's own key. */
  cost: Prisma.Decimal;
  latencyMs: number;
  /** The catalogue model that answered; empty for a Q&A pair's or offline answer. */
  model: string;
}

export interface AnswerCaseDeps {
  chat: PublicChatDeps;
  catalogue: ModelCatalogue;
  publishUsage: (usage: Usage) => void;
  /** Elapsed milliseconds (performance.now in production). */
  now: () => number;
}

const MILLION = new Prisma.Decimal(1_000_000);

export function modelCost(catalogue: ModelCatalogue, usage: Pick<Usage, 'model' | 'promptTokens' | 'completionTokens' | 'ownKey'>) {
  const model = catalogue.find(usage.model);
  if (!model || usage.ownKey) return new Prisma.Decimal(0);
  return new Prisma.Decimal(usage.promptTokens)
    .mul(model.inputPricePerMillion)
    .add(new Prisma.Decimal(usage.completionTokens).mul(model.outputPricePerMillion))
    .div(MILLION);
}

/** The case's answer; throws the visitor's refusal (no credit: UNAVAILABLE) or failure as the turn does. */
export async function answerCase(deps: AnswerCaseDeps, c: CaseToAnswer): Promise<CaseAnswer> {
  let billed: Usage | null = null;
  let requestId = '';
  const runRecorder: Recorder = {
    async record(turn, _answer, usage) {
      requestId = turn.requestId;
      if (usage) {
        billed = billedUsage(turn, usage, new Date());
        deps.publishUsage(billed);
      }
      return '';
    },
  };
  const started = deps.now();
  const result = await sendMessage(
    { ...deps.chat, recorder: runRecorder, ...(c.draft ? { chatbotContext: draftContext(deps.chat.chatbotContext, c.draft) } : {}) },
    {
      uniqueId: c.uniqueId,
      message: c.question,
      sessionId: '',
      model: '',
      clientIp: '',
      userAgent: 'Parley test run',
      history: c.earlierTurns,
    },
    testRun,
  );
  const latencyMs = Math.max(0, Math.round(deps.now() - started));
  const usage = billed as Usage | null;
  return {
    requestId,
    text: result.message,
    sources: result.sources,
    unanswered: result.unanswered,
    offerHandoff: result.offerHandoff,
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    cost: usage ? modelCost(deps.catalogue, usage) : new Prisma.Decimal(0),
    latencyMs,
    model: usage?.model ?? '',
  };
}
