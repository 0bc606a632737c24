import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { PageContainer } from '../../../components/ui/page-container';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';

interface LegalPageProps {
  title: string;
  intro: ReactNode;
  children: ReactNode;
}

/** The frame of the Terms and Privacy pages: a readable column with a Back to Home link. */
export function LegalPage({ title, intro, children }: LegalPageProps) {
  useDocumentTitle(title);
  return (
    <PageContainer className="py-12 sm:py-16">
      <article className="mx-auto max-w-3xl">
        <Link to="/" className="inline-flex items-center gap-1.5 rounded-sm text-sm font-medium text-brand-600 hover:text-brand-700">
          <span aria-hidden="true">←</span> Back to Home
        </Link>
        <h1 className="mt-6 text-3xl font-semibold tracking-tight text-gray-900 sm:text-4xl">{title}</h1>
        <p className="mt-4 text-base leading-7 text-gray-600">{intro}</p>
        <div className="mt-10 space-y-10 text-base leading-7 text-gray-700">{children}</div>
      </article>
    </PageContainer>
  );
}

export function LegalSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section>
      <h2 className="text-xl font-semibold text-gray-900">{title}</h2>
      <div className="mt-3 space-y-3">{children}</div>
    </section>
  );
}
