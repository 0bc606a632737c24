// What every REST route and GraphQL operation needs (docs/adr/0030-workspaces.md): a permission of
// services/common/src/roles.ts in the request's workspace (X-Workspace-Id, the personal one without
// it), or 'session' (about the signed-in person: their account, sessions and workspaces; the header is
// ignored), or 'public' (no sign-in), or 'api-key' (the developer API: a key's scope instead of a
// member's role, each route's in v1/routes.ts, which this table names as a whole). The ONE lookup:
// every /api route is a row of a feature's operation table (http/operations.ts; each row names its
// permission itself, collected in OPERATIONS below, and the registration enforces it); the ACCESS
// table names the GraphQL fields, which graphql.ts wraps with their permission, and the few routes
// outside /api (probes, the test-mode payment pages, development mail). The roles sweep test fails
// for a route or operation this file does not name.
import { PERMISSIONS, type Permission } from '@parley/common/roles.ts';
import { API_V1_ROUTES, OPENAPI_ROUTE } from '../v1/routes.ts';
import { operationKey, type Operation } from '../http/operations.ts';
import { webhookOperations } from '../features/webhooks/rest.ts';
import { apiKeyOperations } from '../features/api-keys/rest.ts';
import { workspaceOperations } from '../features/workspaces/rest.ts';
import { usageOperations } from '../features/usage/rest.ts';
import { providerKeyOperations } from '../features/provider-keys/rest.ts';
import { modelOperations } from '../features/models/rest.ts';
import { paymentOperations } from '../features/billing/rest.ts';
import { chatbotOperations } from '../features/chatbots/rest.ts';
import { knowledgeOperations } from '../features/knowledge/rest.ts';
import { unansweredQuestionOperations } from '../features/unanswered-questions/rest.ts';
import { analyticsOperations } from '../features/analytics/rest.ts';
import { authOperations } from '../features/auth/rest.ts';
import { accountOperations } from '../features/account/rest.ts';
import { ssoOperations } from '../features/sso/rest.ts';
import { publicChatOperations } from '../features/public-chat/rest.ts';
import { leadOperations } from '../features/leads/rest.ts';
import { conversationOperations } from '../features/conversations/rest.ts';
import { inboxOperations } from '../features/inbox/rest.ts';
import { channelWebhookOperations, slackInstallOperations } from '../features/channels/rest.ts';
import { actionOperations } from '../features/actions/rest.ts';
import { mcpServerOperations } from '../features/mcp-servers/rest.ts';

export type Access = Permission | 'session' | 'public' | 'api-key';

/** The dashboard's operations, every feature's table (http/api.ts registers them). */
export const OPERATIONS: readonly Operation[] = [
  ...webhookOperations,
  ...apiKeyOperations,
  ...workspaceOperations,
  ...usageOperations,
  ...providerKeyOperations,
  ...modelOperations,
  ...paymentOperations,
  ...chatbotOperations,
  ...knowledgeOperations,
  ...unansweredQuestionOperations,
  ...analyticsOperations,
  ...authOperations,
  ...accountOperations,
  ...ssoOperations,
  ...publicChatOperations,
  ...leadOperations,
  ...conversationOperations,
  ...inboxOperations,
  ...channelWebhookOperations,
  ...slackInstallOperations,
  ...actionOperations,
  ...mcpServerOperations,
];

/** What an operation row says it needs, as this table's words. */
export function accessOfRow(row: Operation): Access {
  if (typeof row.who === 'object') return 'api-key';
  if (row.who === 'public') return 'public';
  return row.permission ?? 'session';
}

export const ACCESS = {
  // Sign-up, sign-in, password reset (the REST rows: features/auth/rest.ts, features/account/rest.ts;
  // single sign-on's, ADR 47: features/sso/rest.ts).
  'Query.me': 'session',
  'Mutation.register': 'public',
  'Mutation.login': 'public',
  'Mutation.completeTwoFactorLogin': 'public',
  'Mutation.logout': 'session',
  'Mutation.requestPasswordReset': 'public',
  'Mutation.resetPassword': 'public',

  // The person's own account: profile, email, password, two-factor sign-in, sessions, deletion and their
  // data export (the REST rows: features/account/rest.ts).
  'Query.mySessions': 'session',
  'Query.myTwoFactor': 'session',
  'Mutation.startTwoFactorEnrolment': 'session',
  'Mutation.confirmTwoFactorEnrolment': 'session',
  'Mutation.disableTwoFactor': 'session',
  'Mutation.regenerateRecoveryCodes': 'session',
  'Mutation.updateProfile': 'session',
  'Mutation.changeEmail': 'session',
  'Mutation.changePassword': 'session',
  'Mutation.signOutOtherSessions': 'session',
  'Mutation.deleteAccount': 'session',

  // Chatbots, their settings and knowledge (the REST rows: features/chatbots/rest.ts, features/knowledge/rest.ts).
  'Query.chatbots': 'workspace:read',
  'Query.chatbot': 'workspace:read',
  // The models chatbots may answer with.
  'Query.models': 'workspace:read',
  'Mutation.createChatbot': 'chatbots:write',
  'Mutation.updateChatbot': 'chatbots:write',
  'Mutation.deleteChatbot': 'chatbots:write',
  'Mutation.addTextEntry': 'chatbots:write',
  'Mutation.deleteTextEntry': 'chatbots:write',
  'Mutation.addUrlEntry': 'chatbots:write',
  'Mutation.addQaEntry': 'chatbots:write',
  'Mutation.refreshTextEntry': 'chatbots:write',
  'Mutation.setTextEntryAutoSync': 'chatbots:write',
  // A chatbot's messaging channels (ADR 44): its settings; the providers' webhooks are public rows (features/channels/rest.ts), their secrets checked by chat.
  'Query.channelConnections': 'workspace:read',
  'Query.channelDeliveries': 'workspace:read',
  'Query.channelSkippedMessages': 'workspace:read',
  'Mutation.connectChannel': 'chatbots:write',
  'Mutation.disconnectChannel': 'chatbots:write',
  'Mutation.sendChannelTestMessage': 'chatbots:write',

  // Conversations and unanswered questions (visitors' words: agents and above).
  'Query.conversations': 'conversations:read',
  'Query.conversation': 'conversations:read',
  'Query.unansweredQuestions': 'conversations:read',
  'Mutation.answerUnansweredQuestion': 'conversations:write',
  'Mutation.dismissUnansweredQuestion': 'conversations:write',
  // Leads: visitors' contacts, read like their conversations (docs/adr/0034-humans-in-the-loop.md).
  'Query.leads': 'conversations:read',
  // The quality loop (docs/adr/0050-quality-loop.md): a chatbot's tests are its settings; a run spends credit.
  'Query.testCases': 'workspace:read',
  'Query.testRuns': 'workspace:read',
  'Query.testRun': 'workspace:read',
  'Query.testRunEstimate': 'workspace:read',
  'Query.exportTestCases': 'workspace:read',
  'Mutation.saveTestCase': 'chatbots:write',
  'Mutation.deleteTestCase': 'chatbots:write',
  'Mutation.importTestCases': 'chatbots:write',
  'Mutation.startTestRun': 'chatbots:write',
  'Mutation.cancelTestRun': 'chatbots:write',
  'Mutation.applyTestDraft': 'chatbots:write',
  'Mutation.improveAnswer': 'chatbots:write',
  // The judge, generated cases and the regression mail (ADR 61): settings of the chatbot; generating spends credit.
  'Query.qualitySettings': 'workspace:read',
  'Query.proposedTestCases': 'workspace:read',
  'Mutation.saveQualitySettings': 'chatbots:write',
  'Mutation.generateTestCases': 'chatbots:write',
  'Mutation.acceptProposedTestCase': 'chatbots:write',
  'Mutation.discardProposedTestCase': 'chatbots:write',

  // The live inbox (ADR 34): reading it is reading conversations, acting in it writing them; the
  // member's own mail switch is any member's.
  'Query.inbox': 'conversations:read',
  'Query.inboxConversation': 'conversations:read',
  'Query.inboxWaitingCount': 'conversations:read',
  'Mutation.claimConversation': 'conversations:write',
  'Mutation.replyToConversation': 'conversations:write',
  'Mutation.addConversationNote': 'conversations:write',
  'Mutation.handBackConversation': 'conversations:write',
  'Mutation.closeConversation': 'conversations:write',
  'Mutation.summarizeConversation': 'conversations:write',
  'Mutation.setHandoffNotifications': 'workspace:read',

  // Analytics and usage.
  'Query.analytics': 'workspace:read',
  'Query.analyticsSummary': 'workspace:read',
  'Query.usage': 'workspace:read',

  // Plan, checkout and subscription.
  'POST /api/payment/webhook': 'public',
  'Query.billingOptions': 'public',
  'Mutation.createCustomer': 'billing:manage',
  'Mutation.createCheckoutSession': 'billing:manage',
  'Mutation.createBillingPortalSession': 'billing:manage',

  // Workspaces (the REST rows: features/workspaces/rest.ts; single sign-on's settings: features/sso/rest.ts).
  'Query.workspaces': 'session',
  'Query.invitation': 'public',
  'Query.currentWorkspace': 'workspace:read',
  'Query.members': 'workspace:read',
  'Query.invitations': 'members:manage',
  'Query.auditLog': 'audit:read',
  'Mutation.createWorkspace': 'session',
  'Mutation.acceptInvitation': 'session',
  'Mutation.renameWorkspace': 'members:manage',
  'Mutation.setRequireTwoFactor': 'members:manage',
  'Mutation.deleteWorkspace': 'workspace:delete',
  'Mutation.inviteMember': 'members:manage',
  'Mutation.resendInvitation': 'members:manage',
  'Mutation.revokeInvitation': 'members:manage',
  'Mutation.changeMemberRole': 'members:manage',
  'Mutation.removeMember': 'members:manage',
  'Mutation.leaveWorkspace': 'workspace:read',
  'Mutation.transferOwnership': 'ownership:transfer',

  // Webhook endpoints, their secrets and delivery log (ADR 32): owners and admins (the REST rows: features/webhooks/rest.ts).
  'Query.webhookEndpoints': 'webhooks:manage',
  'Query.webhookDeliveries': 'webhooks:manage',
  'Query.webhookEventTypes': 'webhooks:manage',
  'Mutation.createWebhookEndpoint': 'webhooks:manage',
  'Mutation.updateWebhookEndpoint': 'webhooks:manage',
  'Mutation.deleteWebhookEndpoint': 'webhooks:manage',
  'Mutation.rollWebhookSecret': 'webhooks:manage',
  'Mutation.redeliverWebhook': 'webhooks:manage',
  'Mutation.sendTestWebhook': 'webhooks:manage',
  // The developer API's keys, managed from the dashboard (the REST rows: features/api-keys/rest.ts).
  'Query.apiKeys': 'apikeys:manage',
  'Query.apiScopes': 'public',
  'Mutation.createApiKey': 'apikeys:manage',
  'Mutation.rollApiKey': 'apikeys:manage',
  'Mutation.revokeApiKey': 'apikeys:manage',
  // The workspace's own provider keys (ADR 43): the admins', as its API keys are.
  'Query.identityVerification': 'workspace:read',
  'Mutation.createIdentitySecret': 'chatbots:write',
  'Query.providerKeys': 'apikeys:manage',
  'Mutation.setProviderKey': 'apikeys:manage',
  'Mutation.removeProviderKey': 'apikeys:manage',
  // The workspace's retention windows (ADR 48): its own settings, the owners' and admins'.
  'Query.retention': 'members:manage',
  'Query.retentionPreview': 'members:manage',
  'Mutation.setRetention': 'members:manage',

  // Outside /api: probes, the test-mode payment pages
  // (keyed by their session), development mail.
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /checkout/test/:sessionId': 'public',
  'POST /checkout/test/:sessionId/pay': 'public',
  'POST /checkout/test/:sessionId/cancel': 'public',
  'GET /billing/test-portal/:sessionId': 'public',
  'POST /billing/test-portal/:sessionId/cancel': 'public',
  'GET /dev/mail': 'public',

  // The developer API's document (its routes are v1/routes.ts's, below).
  [OPENAPI_ROUTE]: 'public',
} as const satisfies Record<string, Access>;

const byKey = new Map<string, Access>([
  ...Object.entries(ACCESS).map(([key, access]): [string, Access] => [key.toLowerCase(), access]),
  ...OPERATIONS.map((row): [string, Access] => [operationKey(row).toLowerCase(), accessOfRow(row)]),
  ...Object.keys(API_V1_ROUTES).map((key): [string, Access] => [key.toLowerCase(), 'api-key']),
]);

/** What a route (`GET /api/chatbot/:id`) or operation (`Query.chatbots`) needs; undefined when the table does not name it. */
export function accessOf(key: string): Access | undefined {
  return byKey.get(key.toLowerCase());
}

export function isPermission(access: Access | undefined): access is Permission {
  return access !== undefined && access in PERMISSIONS;
}
