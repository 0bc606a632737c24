import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useFlashMessage } from './use-flash-message';

// A success message handed to the next page through the router's state, e.g. "Your password has
// been reset..." on the login page or "Your account has been deleted." on the landing page. It is
// not in the URL, so it cannot be linked to or forged into a page someone else opens.

interface NoticeState {
  notice: string;
}

/** The router state that makes the next page show `notice`: `navigate(to, { state: withNotice(text) })`. */
export function withNotice(notice: string): NoticeState {
  return { notice };
}

function noticeOf(state: unknown): string | null {
  if (state && typeof state === 'object' && 'notice' in state) {
    const { notice } = state as { notice: unknown };
    if (typeof notice === 'string' && notice) return notice;
  }
  return null;
}

/**
 * The notice this page was opened with, shown as a success banner that hides itself after 3
 * seconds (docs/product.md, Constants). It is read once: it is dropped from the history entry, so a reload or coming
 * Back does not show it again.
 */
export function useRouteNotice(): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const { message, show } = useFlashMessage();
  const notice = noticeOf(location.state);

  useEffect(() => {
    if (!notice) return;
    show(notice);
    const rest = { ...(location.state as Record<string, unknown>) };
    delete rest.notice;
    void navigate(
      { pathname: location.pathname, search: location.search, hash: location.hash },
      { replace: true, state: Object.keys(rest).length > 0 ? rest : null },
    );
  }, [notice, show, navigate, location]);

  return message;
}
