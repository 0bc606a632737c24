// The owner's test runs (docs/adr/0050-quality-loop.md): a test case answered the way a visitor's
// message is (the same prompt, retrieval, model, credit hold and billing), but no visitor's: no site
// rules, no proof of work, nothing counted against the rate limits or the visitor's messages today,
// and the case's earlier turns as the history (sent as the client's). The answer is kept whole with
// its [n] markers, as the visitor would see it; the run's recorder stores it with the run, never in
// the conversations or analytics (quality/answer-case.ts).
import type { Channel } from './channel.ts';

export const testRun: Channel = {
  name: 'test run',
  siteRules: false,
  counted: false,
  proofOfWork: false,
  visitor: () => ({ rateLimited: null, countedToday: null }),
  history: 'client',
  answer: { citations: 'markers', streams: false },
  leadForm: true,
};
