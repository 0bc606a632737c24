// The two plans (docs/product.md, Plans, credit and checkout). Prices are display text only: what a checkout charges is decided by the server.

export interface PlanOffer {
  id: 'free' | 'pro';
  name: string;
  price: string;
  period: string;
  description: string;
  features: string[];
}

export const FREE_PLAN: PlanOffer = {
  id: 'free',
  name: 'Free',
  price: '$0',
  period: 'forever',
  description: 'Try Parley with one chatbot.',
  features: ['Up to 1 chatbot', '$0.01 initial credit', 'Basic support', 'Community access', 'Lead capture'],
};

export const PRO_PLAN: PlanOffer = {
  id: 'pro',
  name: 'Pro',
  price: '$10',
  period: 'per month',
  description: 'For teams running chatbots in earnest.',
  features: [
    'Unlimited chatbots',
    '$2.00 initial credit',
    'Priority support',
    'Advanced analytics',
    'Custom branding',
    'Lead capture',
    'Live inbox and handoff to your team',
    'Lead capture',
  ],
};
