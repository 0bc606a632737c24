// Stroke icons of the analytics views, drawn like the rest of Parley's icons.
import { strokeIconProps } from '../ui/icon-props';

export function ConversationsIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M7 16.5 3.5 19.5V6a2 2 0 0 1 2-2h11a2 2 0 0 1 2 2v8.5a2 2 0 0 1-2 2H7Z" />
      <path d="M21 9v11l-3-2.5h-7" />
    </svg>
  );
}

export function MessagesIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M7 17.5 3 21V6a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2v9.5a2 2 0 0 1-2 2H7Z" />
      <path d="M8 9h8M8 13h5" />
    </svg>
  );
}

export function VisitorsIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <circle cx="9" cy="8" r="3.5" />
      <path d="M2.5 20c.6-3.4 3.2-5.5 6.5-5.5s5.9 2.1 6.5 5.5" />
      <path d="M16 4.7a3.5 3.5 0 0 1 0 6.6M18.5 14.8c1.6.9 2.7 2.7 3 5.2" />
    </svg>
  );
}

export function KnowledgeIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M4 5.5A1.5 1.5 0 0 1 5.5 4H10a2 2 0 0 1 2 2v14a1.5 1.5 0 0 0-1.5-1.5h-5A1.5 1.5 0 0 1 4 17V5.5Z" />
      <path d="M20 5.5A1.5 1.5 0 0 0 18.5 4H14a2 2 0 0 0-2 2v14a1.5 1.5 0 0 1 1.5-1.5h5A1.5 1.5 0 0 0 20 17V5.5Z" />
    </svg>
  );
}

export function ThumbUpIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M7 10v10H4.5A1.5 1.5 0 0 1 3 18.5v-7A1.5 1.5 0 0 1 4.5 10H7Z" />
      <path d="M7 10l4-7a2.5 2.5 0 0 1 2.5 2.8L13 9.5h5.6a2 2 0 0 1 2 2.4l-1.4 6.5a2 2 0 0 1-2 1.6H7" />
    </svg>
  );
}

export function ThumbDownIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M17 14V4h2.5A1.5 1.5 0 0 1 21 5.5v7a1.5 1.5 0 0 1-1.5 1.5H17Z" />
      <path d="M17 14l-4 7a2.5 2.5 0 0 1-2.5-2.8l.5-3.7H5.4a2 2 0 0 1-2-2.4l1.4-6.5a2 2 0 0 1 2-1.6H17" />
    </svg>
  );
}

export function ClockIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M12 7.5V12l3 2" />
    </svg>
  );
}

export function SparkIcon({ className = 'size-5' }: { className?: string }) {
  return (
    <svg className={className} {...strokeIconProps}>
      <path d="M4 17 9 11l4 3 7-8" />
      <path d="M15 6h5v5" />
    </svg>
  );
}
