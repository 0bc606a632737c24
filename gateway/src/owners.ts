// Owner routes act for the signed-in user: the bearer token is resolved to the user's id, which the
// chatbot and chat services check every chatbot against.
import { authenticate } from './sessions.ts';
import type { Clients } from './clients.ts';

export async function ownerId(clients: Clients, token: string | undefined): Promise<string> {
  return (await authenticate(clients, token)).id;
}
