import { createElement, Fragment, type ReactNode } from 'react';
import { compiler, RuleType, type MarkdownToJSX } from 'markdown-to-jsx/react';

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * Keeps a link only when it is absolute http(s) or mailto; anything else (javascript:, data:,
 * relative paths that would point into Parley itself) becomes an empty URL, rendered as plain text.
 */
export function safeUrl(url: string): string {
  try {
    return SAFE_PROTOCOLS.has(new URL(url).protocol) ? url : '';
  } catch {
    return '';
  }
}

const linkClass = 'font-medium text-brand-700 underline decoration-brand-300 underline-offset-2 hover:decoration-brand-600';

function Link({ href, children }: { href?: string; children?: ReactNode }) {
  return href ? (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow" className={linkClass}>
      {children}
    </a>
  ) : (
    <span>{children}</span>
  );
}

// A remote image would load from wherever the answer says (a tracking pixel at best): link it instead.
function Image({ src, alt }: { src?: string; alt?: string }) {
  const label = alt || 'image';
  return src ? (
    <a href={src} target="_blank" rel="noopener noreferrer nofollow" className="text-brand-700 underline underline-offset-2">
      {label}
    </a>
  ) : (
    <span>{label}</span>
  );
}

type Children = { children?: ReactNode };
const heading3 = ({ children }: Children) => <h3 className="mt-3 mb-1.5 text-base font-semibold first:mt-0">{children}</h3>;
const heading4 = ({ children }: Children) => <h4 className="mt-3 mb-1 font-semibold first:mt-0">{children}</h4>;

// Answers come from a language model fed with visitors' questions, so they are untrusted: raw HTML
// is shown as the text it is (disableParsingRawHTML), links only when safeUrl keeps them (a new tab,
// no opener), no remote images. Overrides drop every attribute the parser gives but href/src/alt.
const overrides: MarkdownToJSX.Overrides = {
  a: Link,
  img: Image,
  p: ({ children }: Children) => <p className="my-2 first:mt-0 last:mb-0">{children}</p>,
  ul: ({ children }: Children) => <ul className="my-2 list-disc space-y-1 pl-5 first:mt-0 last:mb-0">{children}</ul>,
  ol: ({ children, start }: Children & { start?: number }) => (
    <ol start={start} className="my-2 list-decimal space-y-1 pl-5 first:mt-0 last:mb-0">
      {children}
    </ol>
  ),
  li: ({ children }: Children) => <li className="pl-0.5 marker:text-gray-400">{children}</li>,
  h1: heading3,
  h2: heading3,
  h3: heading4,
  h4: heading4,
  h5: heading4,
  h6: heading4,
  blockquote: ({ children }: Children) => (
    <blockquote className="my-2 border-l-2 border-gray-300 pl-3 text-gray-600 first:mt-0 last:mb-0">{children}</blockquote>
  ),
  hr: () => <hr className="my-3 border-gray-200" />,
  pre: ({ children }: Children) => (
    <pre className="my-2 overflow-x-auto rounded-lg bg-gray-900 p-3 text-[13px] leading-5 text-gray-100 first:mt-0 last:mb-0 [&_code]:bg-transparent [&_code]:p-0 [&_code]:text-inherit">
      {children}
    </pre>
  ),
  code: ({ children }: Children) => (
    <code className="rounded bg-gray-100 px-1 py-0.5 font-mono text-[0.85em] text-gray-800">{children}</code>
  ),
  table: ({ children }: Children) => (
    <div className="my-2 overflow-x-auto first:mt-0 last:mb-0">
      <table className="text-left text-sm">{children}</table>
    </div>
  ),
  th: ({ children }: Children) => <th className="border-b border-gray-200 px-2 py-1 font-semibold">{children}</th>,
  td: ({ children }: Children) => <td className="border-b border-gray-100 px-2 py-1">{children}</td>,
};

function sanitizer(value: string, _tag: string, attribute: string): string | null {
  if (attribute === 'href' || attribute === 'src') return safeUrl(value) || null;
  return value;
}

interface MarkdownMessageProps {
  content: string;
  /**
   * Renders a piece of prose (never code, never a link's text): the public page turns citation
   * markers into badges with it. Without it, text is text.
   */
  renderText?: (text: string) => ReactNode;
}

/** An assistant answer rendered as Markdown, safely (see `overrides`); `renderText` may decorate its prose. */
export function MarkdownMessage({ content, renderText }: MarkdownMessageProps) {
  // The parser renders a link's children inside the link rule's `next()`, synchronously: a depth
  // count tells a link's text from prose.
  let linkDepth = 0;
  const options: MarkdownToJSX.Options = {
    disableParsingRawHTML: true,
    // Front matter would silently drop an answer that starts with "---".
    disableFrontmatter: true,
    overrides,
    sanitizer,
    // The blocks come back as a list, wrapped below: the parser builds its own wrapper element by
    // hand, as it builds every element without `createElement`, and such objects only React renders
    // (the public page runs on preact/compat, the dashboard on React).
    wrapper: null,
    forceBlock: true,
    createElement,
    renderRule(next, node, _renderChildren, state) {
      if (node.type === RuleType.link) {
        linkDepth += 1;
        try {
          return next();
        } finally {
          linkDepth -= 1;
        }
      }
      if (renderText && node.type === RuleType.text && linkDepth === 0) return <Fragment key={state.key}>{renderText(node.text)}</Fragment>;
      return next();
    },
  };
  return <Fragment>{compiler(content, options)}</Fragment>;
}
