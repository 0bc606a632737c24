import { useMutation } from '@apollo/client/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { graphqlErrorMessage } from '../graphql-errors';
import { redirectTo } from '../redirect';
import { useSession } from '../session/session-context';
import { rememberAccountBeforeCheckout } from './account-before-checkout';
import { checkoutRequest, type CheckoutProduct } from './checkout-request';
import { CreateCheckoutSessionMutation } from './graphql/create-checkout-session-mutation';
import { CreateCustomerMutation } from './graphql/create-customer-mutation';

export const CHECKOUT_FAILED_MESSAGE = 'Failed to initiate checkout. Please try again.';

/**
 * Starts a checkout (docs/product.md, Plans, credit and checkout): ask for the owner's customer record, create the checkout session,
 * then send the browser to it. `pending` names the product being prepared, so its button can show
 * "Processing..." and every checkout button can stay disabled; a failure is an alert.
 */
export function useCheckout() {
  const { user } = useSession();
  const [createCustomer] = useMutation(CreateCustomerMutation);
  const [createCheckoutSession] = useMutation(CreateCheckoutSessionMutation);
  const [pending, setPending] = useState<CheckoutProduct | null>(null);
  // A ref as well as state: a double click lands before React re-renders the disabled button.
  const busy = useRef(false);

  // Coming back with the browser's Back button may restore this page from the back-forward cache,
  // still "Processing..."; the checkout was left, so the buttons are usable again.
  useEffect(() => {
    const reset = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      busy.current = false;
      setPending(null);
    };
    window.addEventListener('pageshow', reset);
    return () => window.removeEventListener('pageshow', reset);
  }, []);

  const startCheckout = useCallback(
    async (product: CheckoutProduct): Promise<void> => {
      if (busy.current) return;
      busy.current = true;
      setPending(product);
      try {
        await createCustomer();
        const { data } = await createCheckoutSession({
          variables: { input: checkoutRequest(product, window.location) },
        });
        const url = data?.createCheckoutSession.url;
        if (!url) throw new Error('createCheckoutSession answered without a url');
        if (user) rememberAccountBeforeCheckout(user);
        // The button stays "Processing..." while the browser leaves for the checkout page.
        redirectTo(url);
      } catch (error) {
        console.error('Checkout failed:', graphqlErrorMessage(error) ?? error);
        busy.current = false;
        setPending(null);
        window.alert(CHECKOUT_FAILED_MESSAGE);
      }
    },
    [createCustomer, createCheckoutSession, user],
  );

  return { startCheckout, pending };
}
