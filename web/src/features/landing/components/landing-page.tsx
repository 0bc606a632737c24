import type { ReactNode } from 'react';
import { Alert } from '../../../components/ui/alert';
import { ButtonLink } from '../../../components/ui/button-link';
import { PageContainer } from '../../../components/ui/page-container';
import { ChatPreview } from './chat-preview';
import { strokeIconProps } from '../../../components/ui/icon-props';
import { useRouteNotice } from '../../../lib/route-notice';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';

interface Feature {
  title: string;
  description: string;
  icon: ReactNode;
}

const iconProps = { className: 'size-6', ...strokeIconProps };

const FEATURES: Feature[] = [
  {
    title: 'Custom knowledge base',
    description: 'Add your own text — product details, FAQs, policies — and your chatbot answers from what you taught it.',
    icon: (
      <svg {...iconProps}>
        <path d="M4 19.5V5a2 2 0 0 1 2-2h13v15H6a2 2 0 0 0-2 2Zm0 0A2 2 0 0 0 6 22h13v-4" />
        <path d="M8 7h7M8 11h5" />
      </svg>
    ),
  },
  {
    title: 'Easy deployment',
    description: 'Every chatbot gets a unique shareable URL. Send the link and anyone can start chatting — no install, no code.',
    icon: (
      <svg {...iconProps}>
        <path d="M10 14a5 5 0 0 0 7.07 0l3-3a5 5 0 0 0-7.07-7.07l-1.5 1.5" />
        <path d="M14 10a5 5 0 0 0-7.07 0l-3 3a5 5 0 0 0 7.07 7.07l1.5-1.5" />
      </svg>
    ),
  },
  {
    title: 'Powered by ChatGPT',
    description: "Answers are written by OpenAI's ChatGPT models, grounded in your knowledge so they stay accurate and on-topic.",
    icon: (
      <svg {...iconProps}>
        <path d="M12 3l1.9 5.1L19 10l-5.1 1.9L12 17l-1.9-5.1L5 10l5.1-1.9L12 3Z" />
        <path d="M19 16l.8 2.2L22 19l-2.2.8L19 22l-.8-2.2L16 19l2.2-.8L19 16Z" />
      </svg>
    ),
  },
];

export function LandingPage() {
  useDocumentTitle('AI Chatbots with Your Knowledge');
  // E.g. "Your account has been deleted." after leaving from the account page.
  const notice = useRouteNotice();
  return (
    <>
      <section className="relative overflow-hidden">
        <div className="absolute inset-x-0 top-0 -z-10 h-[32rem] bg-linear-to-b from-brand-50/70 to-white" />
        {notice ? (
          <PageContainer className="pt-6">
            <Alert tone="success" className="mx-auto max-w-2xl text-center">
              {notice}
            </Alert>
          </PageContainer>
        ) : null}
        <PageContainer className="grid items-center gap-12 py-16 sm:py-20 lg:grid-cols-2 lg:gap-16 lg:py-24">
          <div className="text-center lg:text-left">
            <p className="inline-flex items-center gap-2 rounded-full border border-brand-200 bg-white px-3 py-1 text-xs font-medium text-brand-700">
              <span className="size-1.5 rounded-full bg-brand-500" />
              Powered by ChatGPT
            </p>
            <h1 className="mt-6 text-4xl font-semibold tracking-tight text-balance text-gray-900 sm:text-5xl lg:text-[3.5rem] lg:leading-[1.1]">
              Create AI Chatbots with Your Knowledge
            </h1>
            <p className="mx-auto mt-6 max-w-xl text-lg text-pretty text-gray-600 lg:mx-0">
              Turn your documents and know-how into a chatbot that answers your customers around the clock. Build it in minutes, share it
              with a link.
            </p>
            <div className="mt-8 flex flex-col justify-center gap-3 sm:flex-row lg:justify-start">
              <ButtonLink to="/register" size="lg">
                Get Started
              </ButtonLink>
              <ButtonLink to="/pricing" size="lg" variant="secondary">
                View pricing
              </ButtonLink>
            </div>
            <p className="mt-4 text-sm text-gray-500">Free plan available. No credit card required.</p>
          </div>
          <ChatPreview />
        </PageContainer>
      </section>

      <section aria-labelledby="features-heading" className="border-t border-gray-100 bg-white py-16 sm:py-24">
        <PageContainer>
          <div className="mx-auto max-w-2xl text-center">
            <h2 id="features-heading" className="text-3xl font-semibold tracking-tight text-gray-900 sm:text-4xl">
              Key features
            </h2>
            <p className="mt-4 text-base text-gray-600">Everything you need to put a knowledgeable assistant in front of your visitors.</p>
          </div>
          <ul className="mt-12 grid gap-6 md:grid-cols-3">
            {FEATURES.map((feature) => (
              <li key={feature.title} className="rounded-2xl border border-gray-200 bg-white p-6 shadow-sm">
                <span className="flex size-11 items-center justify-center rounded-xl bg-brand-50 text-brand-600 ring-1 ring-brand-100">
                  {feature.icon}
                </span>
                <h3 className="mt-5 text-base font-semibold text-gray-900">{feature.title}</h3>
                <p className="mt-2 text-sm leading-6 text-gray-600">{feature.description}</p>
              </li>
            ))}
          </ul>
        </PageContainer>
      </section>

      <section className="bg-gray-50 py-16 sm:py-20">
        <PageContainer>
          <div className="flex flex-col items-center gap-6 rounded-3xl bg-brand-600 px-6 py-12 text-center shadow-sm sm:px-12">
            <h2 className="text-2xl font-semibold tracking-tight text-white sm:text-3xl">Ready to build your first chatbot?</h2>
            <p className="max-w-xl text-brand-100">Create an account, add what your chatbot should know, and share the link.</p>
            <ButtonLink
              to="/register"
              size="lg"
              variant="secondary"
              className="border-transparent text-brand-700 hover:bg-brand-50 focus-visible:outline-white"
            >
              Create your chatbot
            </ButtonLink>
          </div>
        </PageContainer>
      </section>
    </>
  );
}
