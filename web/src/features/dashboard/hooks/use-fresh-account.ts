import { useEffect, useEffectEvent, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { accountBeforeCheckout, accountChanged, forgetAccountBeforeCheckout } from '../../../lib/billing/account-before-checkout';
import { CHECKOUT_SUCCESS_PARAM, CHECKOUT_SUCCESS_VALUE } from '../../../lib/billing/checkout-request';
import { useSession } from '../../../lib/session/session-context';
import { useFlashMessage } from '../../../lib/use-flash-message';

export const CHECKOUT_POLL_INTERVAL_MS = 1500;
/** About ten seconds of asking, the first at once. */
export const CHECKOUT_POLL_ATTEMPTS = 7;
export const CHECKOUT_CONFIRMING_MESSAGE = 'Payment received. Updating your plan and credit...';
export const CHECKOUT_APPLIED_MESSAGE = 'Payment complete. Your plan and credit are up to date.';

/**
 * Keeps the dashboard's plan and credit current: they change outside it (a checkout, another tab),
 * so opening it asks for the user again. Back from a paid checkout (/dashboard?checkout=success)
 * that is not enough: Stripe's events are queued, so the new plan or credit may land a moment
 * later. Then it asks for the user (and, through `onRefresh`, the usage) at once and every 1.5 s
 * until the account differs from before the checkout, or about ten seconds passed, and drops the
 * query string so a reload does not start over.
 */
export function useFreshAccount(onRefresh: () => void) {
  const [params, setParams] = useSearchParams();
  const { refreshUser } = useSession();
  const returned = params.get(CHECKOUT_SUCCESS_PARAM) === CHECKOUT_SUCCESS_VALUE;
  const [returnedOnOpen] = useState(returned);
  const [confirming, setConfirming] = useState(returned);
  const applied = useFlashMessage();
  // Effect events: the polling effect depends only on having returned from a checkout.
  const refresh = useEffectEvent(async () => {
    const user = await refreshUser();
    onRefresh();
    return user;
  });
  const finished = useEffectEvent((changed: boolean) => {
    forgetAccountBeforeCheckout();
    setConfirming(false);
    if (changed) applied.show(CHECKOUT_APPLIED_MESSAGE);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(CHECKOUT_SUCCESS_PARAM);
        return next;
      },
      { replace: true },
    );
  });

  useEffect(() => {
    if (!returnedOnOpen) void refreshUser();
  }, [refreshUser, returnedOnOpen]);

  useEffect(() => {
    if (!returned) return;
    const before = accountBeforeCheckout();
    let attempts = 0;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const finish = (changed: boolean) => {
      stopped = true;
      finished(changed);
    };

    const ask = async () => {
      attempts += 1;
      const user = await refresh();
      if (stopped) return;
      if (user && before && accountChanged(before, user)) finish(true);
      else if (attempts >= CHECKOUT_POLL_ATTEMPTS) finish(false);
      else timer = setTimeout(() => void ask(), CHECKOUT_POLL_INTERVAL_MS);
    };

    setConfirming(true);
    void ask();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [returned]);

  return { confirming, applied: applied.message };
}
