// Accounts and sessions as REST clients read them, shared by the features that answer with the user
// (sign-up and sign-in here, the account page's profile and email changes).
import type { UserView } from '../../access/users.ts';

/** The user as REST clients read it: `_id` mirrors `id`, and the credit balance is a JSON number. */
export function restUser(user: UserView) {
  return {
    id: user.id,
    _id: user.id,
    email: user.email,
    name: user.name,
    subscription: user.subscription,
    usage: { creditBalance: Number(user.usage.creditBalance), lastCreditRefill: user.usage.lastCreditRefill },
  };
}
