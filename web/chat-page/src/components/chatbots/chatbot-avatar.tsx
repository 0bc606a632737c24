import { cn } from '../../lib/cn';

/** The avatar's fallback: the first two letters of the name, in capitals (docs/product.md, Chatbots). */
export function chatbotInitials(name: string): string {
  return name.trim().slice(0, 2).toUpperCase();
}

const sizes = {
  xs: 'size-8 text-xs',
  sm: 'size-10 text-sm',
  md: 'size-12 text-base',
  lg: 'size-24 text-2xl',
};

interface ChatbotAvatarProps {
  name: string;
  /** Picture URL, e.g. "/media/chatbots/…", or a local preview's object URL. */
  src?: string | null;
  size?: keyof typeof sizes;
  /** Empty when the name is shown next to the avatar, so screen readers do not hear it twice. */
  alt?: string;
  className?: string;
}

export function ChatbotAvatar({ name, src, size = 'md', alt = '', className }: ChatbotAvatarProps) {
  const classes = cn('shrink-0 rounded-full', sizes[size], className);
  if (src) return <img src={src} alt={alt} className={cn(classes, 'bg-gray-100 object-cover ring-1 ring-gray-200')} />;
  return (
    <span
      aria-hidden={alt ? undefined : true}
      aria-label={alt || undefined}
      role={alt ? 'img' : undefined}
      className={cn(classes, 'inline-flex items-center justify-center bg-brand-100 font-semibold text-brand-700')}
    >
      {chatbotInitials(name)}
    </span>
  );
}
