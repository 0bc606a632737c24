// The icons of an answer's sources (and the page's other disclosures), drawn like the rest of
// Parley's (24px grid, 1.75 stroke).
import { strokeIconProps } from '../ui/icon-props';

export function ChevronDownIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="m6 9 6 6 6-6" />
    </svg>
  );
}

export function DocumentIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8l-5-5Z" />
      <path d="M14 3v5h5M9 13h6M9 17h4" />
    </svg>
  );
}

export function ExternalLinkIcon({ className = 'size-3.5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M14 4h6v6M20 4l-9 9M18 14v4a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h4" />
    </svg>
  );
}
