// The owner-facing methods and the permission a member's role needs for each (services/common/src/roles.ts,
// docs/adr/0030-workspaces.md). A gateway call to one of them without a role that holds it is
// refused before it runs; the public chat's methods are not listed, so its path checks nothing more.
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { methodPermissions } from '@parley/common/service-auth.ts';

export const chatPermissions = methodPermissions(ChatService, {
  ListConversations: 'conversations:read',
  GetConversation: 'conversations:read',
  ExportConversations: 'conversations:read',
  ListUnansweredQuestions: 'conversations:read',
  CountUnansweredQuestions: 'conversations:read',
  AnswerUnansweredQuestion: 'conversations:write',
  DismissUnansweredQuestion: 'conversations:write',
  GetAnalytics: 'workspace:read',
  GetAnalyticsSummary: 'workspace:read',
  ListInbox: 'conversations:read',
  CountWaiting: 'conversations:read',
  GetInboxConversation: 'conversations:read',
  WatchInbox: 'conversations:read',
  ListLeads: 'conversations:read',
  ClaimConversation: 'conversations:write',
  ReplyToConversation: 'conversations:write',
  AddConversationNote: 'conversations:write',
  HandBackConversation: 'conversations:write',
  CloseConversation: 'conversations:write',
  SummarizeConversation: 'conversations:write',
  // The quality loop: test cases and runs are the chatbot's settings, as its knowledge is.
  ListTestCases: 'workspace:read',
  ListTestRuns: 'workspace:read',
  GetTestRun: 'workspace:read',
  SaveTestCase: 'chatbots:write',
  DeleteTestCase: 'chatbots:write',
  ImportTestCases: 'chatbots:write',
  StartTestRun: 'chatbots:write',
  CancelTestRun: 'chatbots:write',
  GetQualitySettings: 'workspace:read',
  ListProposedTestCases: 'workspace:read',
  SaveQualitySettings: 'chatbots:write',
  GenerateTestCases: 'chatbots:write',
  AcceptProposedTestCase: 'chatbots:write',
  DiscardProposedTestCase: 'chatbots:write',
  // A workspace's own provider keys are the admins', as its API keys are.
  ListProviderKeys: 'apikeys:manage',
  SetProviderKey: 'apikeys:manage',
  RemoveProviderKey: 'apikeys:manage',
  // A chatbot's identity secret is part of its settings.
  CreateIdentitySecret: 'chatbots:write',
  GetIdentityVerification: 'workspace:read',
  // The workspace's own settings (docs/adr/0048-retention-windows.md): owners and admins.
  GetRetention: 'members:manage',
  SetRetention: 'members:manage',
  PreviewRetention: 'members:manage',
  // A chatbot's messaging channels are its settings: read by any member, changed by editors.
  ListChannelConnections: 'workspace:read',
  ListChannelDeliveries: 'workspace:read',
  ListSkippedMessages: 'workspace:read',
  ConnectChannel: 'chatbots:write',
  DisconnectChannel: 'chatbots:write',
  SendChannelTestMessage: 'chatbots:write',
  // Slack's install: the member's role when the install started, carried by its state (ADR 64).
  ConnectSlackInstall: 'chatbots:write',
});

/**
 * The methods no role is asked for (the public chat: a visitor's lookup, challenge, messages,
 * ratings, handoff requests, live stream and leads; the deployment's offered models, which are no
 * workspace's data); every method is in one list or the other.
 */
export const chatUnchecked: readonly string[] = [
  'GetPublicChatbot',
  'CreateChallenge',
  'SendMessage',
  'StreamMessage',
  'RateMessage',
  'RequestHandoff',
  'WatchConversation',
  'SubmitLead',
  'ListModels',
  // A provider's update on the public webhook: the connection's secret authenticates it (ADR 44).
  'ReceiveChannelUpdate',
  // Meta's webhook handshake: the connection's verify token authenticates it (ADR 56).
  'VerifyChannelWebhook',
  // The gateway's own check of a Telegram webhook call: a connection's id and its secret's hash, no secret (ADR 64).
  'GetChannelVerifier',
];
