// The public chat page's own entry (chat.html): a small React root without the owner dashboard,
// Apollo or the router, so visitors download only what the chat needs. The same page is the
// widget's iframe at /embed/{uniqueId}.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { PublicChatPage } from './features/public-chat/components/public-chat-page';
import { isEmbedPath, uniqueIdFromPath } from './features/public-chat/unique-id-from-path';
import './index.css';

const root = document.getElementById('root');
if (!root) throw new Error('chat.html has no #root element');

const { pathname } = window.location;
createRoot(root).render(
  <StrictMode>
    <PublicChatPage uniqueId={uniqueIdFromPath(pathname)} embedded={isEmbedPath(pathname)} />
  </StrictMode>,
);
