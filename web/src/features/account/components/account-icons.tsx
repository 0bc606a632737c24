// Stroke icons of the account page, drawn like the rest of Parley's icons.
import { strokeIconProps } from '../../../components/ui/icon-props';

export function DownloadIcon({ className = 'size-4' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
    </svg>
  );
}

export function DeviceIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <rect x="3" y="4" width="18" height="12" rx="2" />
      <path d="M8 20h8M12 16v4" />
    </svg>
  );
}

export function WarningIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M12 3.5 2.5 20h19L12 3.5Z" />
      <path d="M12 10v4.5M12 17.5v.01" />
    </svg>
  );
}
