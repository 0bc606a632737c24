import { cn } from '../../lib/cn';

/** The border, focus ring and disabled look shared by text inputs, selects and text areas. */
export const fieldControlClasses = cn(
  'block w-full rounded-lg border border-gray-300 bg-white px-3.5 text-sm text-gray-900 shadow-xs',
  'placeholder:text-gray-400 transition-colors',
  'focus:border-brand-500 focus:ring-3 focus:ring-brand-500/20 focus:outline-none',
  'disabled:cursor-not-allowed disabled:bg-gray-50 disabled:text-gray-500',
);
