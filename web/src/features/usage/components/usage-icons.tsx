// Stroke icons of the usage page, drawn like the rest of Parley's icons.
import { strokeIconProps } from '../../../components/ui/icon-props';

export function DownloadIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
    </svg>
  );
}

export function CoinIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M14.5 9.5c-.4-.9-1.4-1.5-2.5-1.5-1.4 0-2.5.8-2.5 2s1.1 1.7 2.5 2 2.5.8 2.5 2-1.1 2-2.5 2c-1.1 0-2.1-.6-2.5-1.5M12 6.5V8M12 16v1.5" />
    </svg>
  );
}

export function TokensIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M4 7h16M4 12h10M4 17h13" />
    </svg>
  );
}

export function RequestsIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M4 17 9 11l4 3 7-8" />
      <path d="M15 6h5v5" />
    </svg>
  );
}

export function ChartIcon({ className = 'size-6' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M4 4v16h16" />
      <path d="M8 15v-3M12 15V8M16 15v-5" />
    </svg>
  );
}
