// The handoff components (handoff.tsx), loaded on their own after the page: only chatbots that offer
// a person use them, and the page's JavaScript has a budget (ADR 21). One import serves them all;
// each shows nothing until it has loaded (a moment after the first answer, long before it is needed).
import { lazy, Suspense, type ComponentProps } from 'react';
import type * as Handoff from './handoff';

const load = () => import('./handoff');

const LazyTalkToPerson = lazy(() => load().then((m) => ({ default: m.TalkToPersonButton })));
const LazyOffer = lazy(() => load().then((m) => ({ default: m.HandoffOffer })));
const LazyBanner = lazy(() => load().then((m) => ({ default: m.HandoffBanner })));
const LazyAgentBubble = lazy(() => load().then((m) => ({ default: m.AgentBubble })));
const LazySystemNotice = lazy(() => load().then((m) => ({ default: m.SystemNotice })));
const LazyTimeoutEmailForm = lazy(() => load().then((m) => ({ default: m.TimeoutEmailForm })));

export const TalkToPersonButton = (props: ComponentProps<typeof Handoff.TalkToPersonButton>) => (
  <Suspense fallback={null}>
    <LazyTalkToPerson {...props} />
  </Suspense>
);
export const HandoffOffer = (props: ComponentProps<typeof Handoff.HandoffOffer>) => (
  <Suspense fallback={null}>
    <LazyOffer {...props} />
  </Suspense>
);
export const HandoffBanner = (props: ComponentProps<typeof Handoff.HandoffBanner>) => (
  <Suspense fallback={null}>
    <LazyBanner {...props} />
  </Suspense>
);
export const AgentBubble = (props: ComponentProps<typeof Handoff.AgentBubble>) => (
  <Suspense fallback={null}>
    <LazyAgentBubble {...props} />
  </Suspense>
);
export const SystemNotice = (props: ComponentProps<typeof Handoff.SystemNotice>) => (
  <Suspense fallback={null}>
    <LazySystemNotice {...props} />
  </Suspense>
);
export const TimeoutEmailForm = (props: ComponentProps<typeof Handoff.TimeoutEmailForm>) => (
  <Suspense fallback={null}>
    <LazyTimeoutEmailForm {...props} />
  </Suspense>
);
