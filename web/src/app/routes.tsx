import { Navigate, type RouteObject } from 'react-router-dom';
import { AccountPage } from '../features/account/components/account-page';
import { ForgotPasswordPage } from '../features/auth/components/forgot-password-page';
import { LoginPage } from '../features/auth/components/login-page';
import { SsoCallbackPage } from '../features/auth/components/sso-callback-page';
import { RegisterPage } from '../features/auth/components/register-page';
import { ResetPasswordPage } from '../features/auth/components/reset-password-page';
import { ChatbotDetailPage } from '../features/chatbots/components/chatbot-detail-page';
import { ChatbotsPage } from '../features/chatbots/components/chatbots-page';
import { CreateChatbotPage } from '../features/chatbots/components/create-chatbot-page';
import { ApiReferencePage } from '../features/developers/components/api-reference-page';
import { DevelopersPage } from '../features/developers/components/developers-page';
import { DashboardPage } from '../features/dashboard/components/dashboard-page';
import { InboxPage } from '../features/inbox/components/inbox-page';
import { AddToTests } from '../features/chatbots/components/answer-actions';
import { useConversationToolCalls } from '../features/chatbots/hooks/use-conversation-tool-calls';
import type { AnswerSlot } from '../components/conversations/answer-slot';
import { LandingPage } from '../features/landing/components/landing-page';
import { LeadsPage } from '../features/leads/components/leads-page';
import { PrivacyPage } from '../features/legal/components/privacy-page';
import { TermsPage } from '../features/legal/components/terms-page';
import { PricingPage } from '../features/pricing/components/pricing-page';
import { UsagePage } from '../features/usage/components/usage-page';
import { SecurityPage } from '../features/security/components/security-page';
import { WebhooksPage } from '../features/webhooks/components/webhooks-page';
import { AuditLogPage } from '../features/workspace/components/audit-log-page';
import { InvitationPage } from '../features/workspace/components/invitation-page';
import { MembersPage } from '../features/workspace/components/members-page';
import { NoWorkspacePage } from '../features/workspace/components/no-workspace-page';
import { NotFoundPage } from './not-found-page';
import { RequireAuth } from './require-auth';
import { RequireTwoFactor } from './require-two-factor';
import { RequireWorkspace } from './require-workspace';
import { SiteLayout } from './site-layout';

/**
 * Under an answer in the inbox's conversation: "Add to tests" (the chatbots feature's), for a member
 * who may change the chatbot. The calls the bot made come from that feature's hook, as in History.
 */
const inboxAnswerSlot: AnswerSlot = (answer) => <AddToTests {...answer} source="inbox" />;

// The public chat page (/chat/{uniqueId}) is not here: it is its own small page, chat.html
// (src/chat/main.tsx), which the gateway serves for /chat/* so visitors never load the dashboard.
export const routes: RouteObject[] = [
  {
    element: <SiteLayout />,
    children: [
      { path: '/', element: <LandingPage /> },
      { path: '/pricing', element: <PricingPage /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/login/sso', element: <SsoCallbackPage /> },
      { path: '/register', element: <RegisterPage /> },
      { path: '/signup', element: <Navigate to="/register" replace /> },
      { path: '/forgot-password', element: <ForgotPasswordPage /> },
      { path: '/reset-password', element: <ResetPasswordPage /> },
      { path: '/terms', element: <TermsPage /> },
      { path: '/privacy', element: <PrivacyPage /> },
      // Signed in or not: a signed-out invitee is offered sign-up and sign-in that come back here.
      { path: '/invitations/:token', element: <InvitationPage /> },
      { path: '/developers/api', element: <ApiReferencePage /> },
      {
        element: <RequireAuth />,
        children: [
          // The person's own page, whatever the workspace.
          { path: '/account', element: <AccountPage /> },
          {
            // A workspace that requires two-factor sign-in sends a member without it to set it up first.
            element: <RequireTwoFactor />,
            children: [
              // A person in no workspace sees, on the dashboard, the way to create or join one…
              {
                element: <RequireWorkspace without={<NoWorkspacePage />} waitForFirst />,
                children: [{ path: '/dashboard', element: <DashboardPage /> }],
              },
              // …and every page about a workspace's things leads back there.
              {
                element: <RequireWorkspace without={<Navigate to="/dashboard" replace />} />,
                children: [
                  { path: '/usage', element: <UsagePage /> },
                  { path: '/workspace/developers', element: <DevelopersPage /> },
                  { path: '/inbox', element: <InboxPage answerSlot={inboxAnswerSlot} toolCalls={useConversationToolCalls} /> },
                  {
                    path: '/inbox/:conversationId',
                    element: <InboxPage answerSlot={inboxAnswerSlot} toolCalls={useConversationToolCalls} />,
                  },
                  { path: '/chatbots', element: <ChatbotsPage /> },
                  { path: '/chatbots/create', element: <CreateChatbotPage /> },
                  { path: '/chatbots/:id', element: <ChatbotDetailPage /> },
                  { path: '/leads', element: <LeadsPage /> },
                  { path: '/workspace/members', element: <MembersPage /> },
                  { path: '/workspace/audit-log', element: <AuditLogPage /> },
                  { path: '/workspace/webhooks', element: <WebhooksPage /> },
                  { path: '/workspace/security', element: <SecurityPage /> },
                ],
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
