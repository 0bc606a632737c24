import { useMutation } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { redirectTo } from '../../../lib/redirect';
import { CreateBillingPortalSessionMutation } from '../graphql/create-billing-portal-session-mutation';

export const BILLING_PORTAL_FAILED_MESSAGE = 'Could not open the billing portal. Please try again.';

/**
 * "Manage subscription" for a pro owner: asks for a billing portal session and sends the browser
 * there. The button says "Opening..." until the browser has left; a failure is shown on the card.
 */
export function useBillingPortal() {
  const [createPortalSession] = useMutation(CreateBillingPortalSessionMutation);
  const [opening, setOpening] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A ref as well as state: a double click lands before React re-renders the disabled button.
  const busy = useRef(false);

  // Back from the portal, the browser may restore this page from its cache still "Opening...".
  useEffect(() => {
    const reset = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      busy.current = false;
      setOpening(false);
    };
    window.addEventListener('pageshow', reset);
    return () => window.removeEventListener('pageshow', reset);
  }, []);

  async function openBillingPortal(): Promise<void> {
    if (busy.current) return;
    busy.current = true;
    setOpening(true);
    setError(null);
    try {
      const { data } = await createPortalSession();
      const url = data?.createBillingPortalSession;
      if (!url) throw new Error('createBillingPortalSession answered without a url');
      redirectTo(url);
    } catch (failure) {
      busy.current = false;
      setOpening(false);
      setError(userFacingErrorMessage(failure, BILLING_PORTAL_FAILED_MESSAGE));
    }
  }

  return { openBillingPortal, opening, error };
}
