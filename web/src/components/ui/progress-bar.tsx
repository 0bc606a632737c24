import { cn } from '../../lib/cn';

interface ProgressBarProps {
  /** 0 to 100. */
  percent: number;
  /** Names the bar for screen readers, e.g. "Uploading handbook.pdf". */
  label: string;
  className?: string;
}

/** A determinate progress bar with its percent beside it. */
export function ProgressBar({ percent, label, className }: ProgressBarProps) {
  const value = Math.max(0, Math.min(100, Math.round(percent)));
  return (
    <div className={cn('flex items-center gap-3', className)}>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value}
        className="h-2 min-w-0 flex-1 overflow-hidden rounded-full bg-gray-100"
      >
        <div className="h-full rounded-full bg-brand-600 transition-[width] duration-200" style={{ width: `${value}%` }} />
      </div>
      <span className="w-10 shrink-0 text-right text-xs font-medium text-gray-600 tabular-nums">{value}%</span>
    </div>
  );
}
