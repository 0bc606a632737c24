import Markdown, { type Components, type Options, type UrlTransform } from 'react-markdown';

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * Keeps a link only when it is absolute http(s) or mailto; anything else (javascript:, data:,
 * relative paths that would point into Parley itself) becomes an empty URL, rendered as plain text.
 */
export const safeUrl: UrlTransform = (url) => {
  try {
    return SAFE_PROTOCOLS.has(new URL(url).protocol) ? url : '';
  } catch {
    return '';
  }
};

// Answers come from a language model fed with visitors' questions, so they are untrusted: no raw
// HTML (react-markdown shows it as text without rehype-raw), no unsafe links, no remote images.
const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer nofollow"
        className="font-medium text-brand-700 underline decoration-brand-300 underline-offset-2 hover:decoration-brand-600"
      >
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  // A remote image would load from wherever the answer says (a tracking pixel at best): link it instead.
  img: ({ src, alt }) => {
    const label = alt || 'image';
    return typeof src === 'string' && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow" className="text-brand-700 underline underline-offset-2">
        {label}
      </a>
    ) : (
      <span>{label}</span>
    );
  },
  p: ({ children }) => <p className="my-2 first:mt-0 last:mb-0">{children}</p>,
  ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-5 first:mt-0 last:mb-0">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-5 first:mt-0 last:mb-0">{children}</ol>,
  li: ({ children }) => <li className="pl-0.5 marker:text-gray-400">{children}</li>,
  h1: ({ children }) => <h3 className="mt-3 mb-1.5 text-base font-semibold first:mt-0">{children}</h3>,
  h2: ({ children }) => <h3 className="mt-3 mb-1.5 text-base font-semibold first:mt-0">{children}</h3>,
  h3: ({ children }) => <h4 className="mt-3 mb-1 font-semibold first:mt-0">{children}</h4>,
  h4: ({ children }) => <h4 className="mt-3 mb-1 font-semibold first:mt-0">{children}</h4>,
  h5: ({ children }) => <h4 className="mt-3 mb-1 font-semibold first:mt-0">{children}</h4>,
  h6: ({ children }) => <h4 className="mt-3 mb-1 font-semibold first:mt-0">{children}</h4>,
  blockquote: ({ children }) => (
    <blockquote className="my-2 border-l-2 border-gray-300 pl-3 text-gray-600 first:mt-0 last:mb-0">{children}</blockquote>
  ),
  hr: () => <hr className="my-3 border-gray-200" />,
  pre: ({ children }) => (
    <pre className="my-2 overflow-x-auto rounded-lg bg-gray-900 p-3 text-[13px] leading-5 text-gray-100 first:mt-0 last:mb-0 [&_code]:bg-transparent [&_code]:p-0 [&_code]:text-inherit">
      {children}
    </pre>
  ),
  code: ({ children }) => <code className="rounded bg-gray-100 px-1 py-0.5 font-mono text-[0.85em] text-gray-800">{children}</code>,
};

/** An assistant answer rendered as Markdown, safely; `remarkPlugins` may add syntax (citation badges), never raw HTML. */
export function MarkdownMessage({ content, remarkPlugins }: { content: string; remarkPlugins?: Options['remarkPlugins'] }) {
  return (
    <Markdown components={components} urlTransform={safeUrl} remarkPlugins={remarkPlugins}>
      {content}
    </Markdown>
  );
}
