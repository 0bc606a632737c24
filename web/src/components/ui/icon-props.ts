// The public chat page's own, shared: one copy for the page and the dashboard.
export * from '../../../chat-page/src/components/ui/icon-props';
