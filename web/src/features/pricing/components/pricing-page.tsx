import { useNavigate } from 'react-router-dom';
import { PageContainer } from '../../../components/ui/page-container';
import { useCheckout } from '../../../lib/billing/use-checkout';
import { useSession } from '../../../lib/session/session-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { FREE_PLAN, PRO_PLAN } from '../plans';
import { PlanCard } from './plan-card';

export function PricingPage() {
  useDocumentTitle('Pricing');
  const { user, isAuthenticated } = useSession();
  const navigate = useNavigate();
  const { startCheckout, pending } = useCheckout();
  const isPro = user?.subscription === 'pro';

  function chooseFree() {
    navigate(isAuthenticated ? '/dashboard' : '/signup');
  }

  function upgrade() {
    if (!isAuthenticated) {
      navigate('/signup');
      return;
    }
    void startCheckout('pro');
  }

  return (
    <PageContainer className="py-12 sm:py-16">
      <div className="mx-auto max-w-2xl text-center">
        <p className="text-sm font-semibold text-brand-600">Pricing</p>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight text-gray-900 sm:text-4xl">Simple plans that grow with you</h1>
        <p className="mt-4 text-base text-gray-600">
          Start for free with one chatbot. Upgrade when you need more chatbots, more credit and priority help.
        </p>
      </div>
      <div className="mx-auto mt-12 grid max-w-4xl gap-8 md:grid-cols-2">
        <PlanCard plan={FREE_PLAN} actionLabel={isAuthenticated ? 'Go to Dashboard' : 'Get Started'} onAction={chooseFree} />
        <PlanCard
          plan={PRO_PLAN}
          highlighted
          actionLabel={isPro ? 'Current Plan' : 'Upgrade Now'}
          disabled={isPro}
          busy={pending === 'pro'}
          onAction={upgrade}
        />
      </div>
      <p className="mt-10 text-center text-sm text-gray-500">
        Usage is billed from your credit balance. Subscriptions renew monthly until cancelled.
      </p>
    </PageContainer>
  );
}
