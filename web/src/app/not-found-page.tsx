import { ButtonLink } from '../components/ui/button-link';
import { useDocumentTitle } from '../../chat-page/src/lib/use-document-title';

export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <div className="flex flex-1 flex-col items-center justify-center px-4 py-24 text-center">
      <p className="text-sm font-semibold text-brand-600">404</p>
      <h1 className="mt-2 text-3xl font-semibold tracking-tight text-gray-900 sm:text-4xl">Page not found</h1>
      <p className="mt-4 max-w-md text-base text-gray-600">
        Sorry, we couldn&apos;t find the page you&apos;re looking for. It may have moved, or the link may be wrong.
      </p>
      <ButtonLink to="/" className="mt-8">
        Back to Home
      </ButtonLink>
    </div>
  );
}
