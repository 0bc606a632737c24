// The chat page's own icons, drawn like the rest of Parley's (24px grid, 1.75 stroke).
import { strokeIconProps } from '../../../components/ui/icon-props';

export function CloseIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M6 6l12 12M18 6 6 18" />
    </svg>
  );
}

export function SendIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M5 12h9M4.6 4.3l15 7a.8.8 0 0 1 0 1.4l-15 7a.8.8 0 0 1-1.1-1l2.4-6.7-2.4-6.7a.8.8 0 0 1 1.1-1Z" />
    </svg>
  );
}

export function AlertIcon({ className = 'size-6' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7.5v5M12 16h.01" />
    </svg>
  );
}

export function SparkIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M12 3v3M12 18v3M3 12h3M18 12h3M6.3 6.3l2.1 2.1M15.6 15.6l2.1 2.1M6.3 17.7l2.1-2.1M15.6 8.4l2.1-2.1" />
    </svg>
  );
}

export function ThumbUpIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M7 10v11M7 10H4.5a1.5 1.5 0 0 0-1.5 1.5v8A1.5 1.5 0 0 0 4.5 21H17a2 2 0 0 0 2-1.7l1.2-7A2 2 0 0 0 18.2 10H14V5.5A2.5 2.5 0 0 0 11.5 3L7 10Z" />
    </svg>
  );
}

export function ThumbDownIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M17 14V3M17 14h2.5a1.5 1.5 0 0 0 1.5-1.5v-8A1.5 1.5 0 0 0 19.5 3H7a2 2 0 0 0-2 1.7l-1.2 7A2 2 0 0 0 5.8 14H10v4.5a2.5 2.5 0 0 0 2.5 2.5L17 14Z" />
    </svg>
  );
}
