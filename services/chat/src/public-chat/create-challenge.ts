// A proof-of-work challenge for a chatbot's page (proof-of-work.ts), handed out on the same terms as
// the chatbot's public lookup: an unknown or inactive chatbot is NOT_FOUND, a site it may not run on
// PERMISSION_DENIED. It is handed out whether or not the chatbot asks for proof of work (the page may
// ask before it knows); solving one costs the visitor's browser, never this service, beyond one hash.
import { loadPublicChatbot, type ChatbotProfileDeps, type PublicCall } from './chatbot-profile.ts';
import type { Challenge, ProofOfWork } from './proof-of-work.ts';

export async function createChallenge(deps: ChatbotProfileDeps & { proofOfWork: ProofOfWork }, call: PublicCall): Promise<Challenge> {
  await loadPublicChatbot(deps, call);
  return deps.proofOfWork.challenge();
}
