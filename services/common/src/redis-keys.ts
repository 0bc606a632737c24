// Every Redis key the services build, in one place (docs/adr/0014-caches.md lists what each holds).
// A key is `<prefix>:<family>:<part>:...`: the prefix is the deployment's QUEUE_PREFIX (BullMQ's
// own keys live under `<prefix>:<queue name>:` and are BullMQ's business), the family says what the
// key holds. NEVER rename a family or reorder parts: live keys are stored under them, and a renamed
// one silently loses them (rate windows restart, a revision reads as missing, kept turns are read
// from the database again, throttles forget their blocks).
//
// The builders join parts as given: callers normalise them (lower-case ids, bounded addresses,
// hashed emails) and only well-formed values name a key.

export const REDIS_KEY_FAMILIES = {
  chatRate: 'chat-rate',
  chatbotRevision: 'chatbot-revision',
  chatTurns: 'chat-turns',
  auth: 'auth',
  chatLimit: 'chat-limit',
  webhooks: 'webhooks',
  apiRate: 'api-rate',
  handoff: 'handoff',
  conversationChannel: 'conversation',
  inboxChannel: 'inbox',
  accessChannel: 'access',
  providerKeys: 'provider-keys',
  apiKeyFailures: 'api-key-failures',
  actionConfirm: 'action-confirm',
  slackInstall: 'slack-install',
  handoffLimit: 'handoff-limit',
} as const;

const join = (...parts: string[]) => parts.join(':');

export function redisKeys(prefix: string) {
  const f = REDIS_KEY_FAMILIES;
  return {
    /** Messages one visitor (IP, or "unknown") sent one chatbot in the current window (chat). */
    chatRateVisitor: (uniqueId: string, visitor: string) => join(prefix, f.chatRate, 'visitor', uniqueId, visitor),
    /** Messages one chatbot received from everyone in the current window (chat). */
    chatRateChatbot: (uniqueId: string) => join(prefix, f.chatRate, 'chatbot', uniqueId),
    /** A chatbot's public revision (set by chatbot, read by chat; ADR 0006). */
    chatbotRevision: (chatbotId: string) => join(prefix, f.chatbotRevision, chatbotId),
    /** A conversation's recent turns (chat; ADR 0008). */
    chatTurns: (chatbotId: string, sessionId: string) => join(prefix, f.chatTurns, chatbotId, sessionId),
    /** A SCAN pattern for every conversation's turns of one chatbot (its id must hold no pattern characters). */
    chatTurnsOfChatbot: (chatbotId: string) => `${join(prefix, f.chatTurns, chatbotId)}:*`,
    /** Messages one visitor (salted hash of the address) sent one chatbot on one UTC day (chat; ADR 19). */
    chatLimitVisitorDay: (chatbotId: string, day: string, visitorHash: string) =>
      join(prefix, f.chatLimit, 'visitor', chatbotId, day, visitorHash),
    /** A proof-of-work challenge already used, by its signature (chat; ADR 19). */
    chatLimitChallengeUsed: (signature: string) => join(prefix, f.chatLimit, 'challenge', signature),
    /** Calls one developer API key made in the current window (gateway; docs/adr/0033-developer-api.md). */
    apiRateKey: (apiKeyId: string) => join(prefix, f.apiRate, 'key', apiKeyId),
    /** Developer API key checks auth refused for one client address in the current window (gateway; docs/adr/0033-developer-api.md). */
    apiKeyFailuresIp: (ip: string) => join(prefix, f.apiKeyFailures, 'ip', ip),
    /** Failed logins per (IP or "-", account hash), per IP, per account hash (auth). */
    loginFailuresIpAccount: (ip: string, accountHash: string) =>
      join(prefix, f.auth, 'login-failures', 'ip-account', ip || '-', accountHash),
    loginFailuresIp: (ip: string) => join(prefix, f.auth, 'login-failures', 'ip', ip),
    loginFailuresAccount: (accountHash: string) => join(prefix, f.auth, 'login-failures', 'account', accountHash),
    /** Wrong codes at two-factor sign-in's second step, per IP and per account (auth; ADR 41). */
    twoFactorFailuresIp: (ip: string) => join(prefix, f.auth, 'two-factor-failures', 'ip', ip),
    twoFactorFailuresAccount: (userId: string) => join(prefix, f.auth, 'two-factor-failures', 'account', userId),
    /** Sign-ups per IP (auth). */
    registrationsIp: (ip: string) => join(prefix, f.auth, 'registrations', 'ip', ip),
    /** Password reset requests per email hash and per IP (auth). */
    passwordResetsEmail: (emailHash: string) => join(prefix, f.auth, 'password-resets', 'email', emailHash),
    passwordResetsIp: (ip: string) => join(prefix, f.auth, 'password-resets', 'ip', ip),
    /** A conversation a person has (waiting or human): its handoff state, read by the visitor's admission (chat; ADR 34). */
    handoff: (chatbotId: string, sessionId: string) => join(prefix, f.handoff, chatbotId, sessionId),
    /** When a visitor, spend or credit limit last stopped a message of a conversation whose chatbot offers a person: its handoff's limit_reached (chat; ADR 65). */
    handoffLimit: (chatbotId: string, sessionId: string) => join(prefix, f.handoffLimit, chatbotId, sessionId),
    /** Pub/sub channel: what the visitor of one conversation sees, live (chat; ADR 34). */
    conversationChannel: (conversationId: string) => join(prefix, f.conversationChannel, conversationId),
    /** Pub/sub channel: a workspace's inbox rows as they change (chat; ADR 34). */
    inboxChannel: (ownerId: string) => join(prefix, f.inboxChannel, ownerId),
    /** Pub/sub channel: whose access was just taken away or changed (users, workspaces, API keys), for every holder of a long-lived response (auth publishes, gateways listen; docs/adr/0035-access-for-as-long-as-a-response-lives.md). */
    accessChannel: () => join(prefix, f.accessChannel, 'changes'),
    /** Pub/sub channel: the owner whose own provider keys were just set or removed, for every chat replica's cache of them (chat; ADR 43). */
    providerKeysChannel: () => join(prefix, f.providerKeys, 'changes'),
    /** Hash: owner id → the event types its enabled webhook endpoints subscribe to, comma-separated (set by chatbot; ADR 32). */
    webhookSubscriptions: () => join(prefix, f.webhooks, 'subscriptions'),
    /** A random revision set on every change of webhookSubscriptions: readers cache the hash under it (ADR 32). */
    webhookSubscriptionsRevision: () => join(prefix, f.webhooks, 'subscriptions-revision'),
    /** Set while an owner's credit is below the low-credit threshold, so credit.low is sent once per crossing (billing; ADR 32). */
    webhookCreditLow: (ownerId: string) => join(prefix, f.webhooks, 'credit-low', ownerId),
    /** An action call waiting for the visitor's Confirm: its inputs, fixed when the model asked (chat; docs/adr/0054-action-confirmation.md). */
    actionConfirmCall: (callId: string) => join(prefix, f.actionConfirm, 'call', callId),
    /** The visitor's decision on one pending call, set once: confirm or cancel (chat). */
    actionConfirmDecision: (callId: string) => join(prefix, f.actionConfirm, 'decision', callId),
    /** A conversation's pending call of one action with one set of inputs, so the model asking again shows the same card (chat). */
    actionConfirmOpen: (chatbotId: string, sessionId: string, fingerprint: string) =>
      join(prefix, f.actionConfirm, 'open', chatbotId, sessionId, fingerprint),
    /** A started "Add to Slack" install, taken once by its callback (gateway; docs/adr/0064-channels-for-operators.md). */
    slackInstallState: (nonce: string) => join(prefix, f.slackInstall, 'state', nonce),
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
