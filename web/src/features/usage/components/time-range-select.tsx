import { useId } from 'react';
import { cn } from '../../../lib/cn';
import { fieldControlClasses } from '../../../components/ui/field-styles';
import { isUsageRange, USAGE_RANGES, type UsageRange } from '../usage-range';

/** The usage page's range picker: Last 7 days, Last 30 days or Last year. */
export function TimeRangeSelect({ value, onChange }: { value: UsageRange; onChange: (range: UsageRange) => void }) {
  const id = useId();
  return (
    <div className="relative">
      <label htmlFor={id} className="sr-only">
        Time range
      </label>
      <select
        id={id}
        value={value}
        onChange={(event) => {
          if (isUsageRange(event.target.value)) onChange(event.target.value);
        }}
        className={cn(fieldControlClasses, 'h-10 w-44 appearance-none pr-10 font-medium')}
      >
        {USAGE_RANGES.map((range) => (
          <option key={range.value} value={range.value}>
            {range.label}
          </option>
        ))}
      </select>
      <svg
        className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 text-gray-500"
        viewBox="0 0 20 20"
        fill="currentColor"
        aria-hidden="true"
      >
        <path
          fillRule="evenodd"
          d="M5.23 7.21a.75.75 0 0 1 1.06.02L10 11.17l3.71-3.94a.75.75 0 1 1 1.08 1.04l-4.25 4.5a.75.75 0 0 1-1.08 0l-4.25-4.5a.75.75 0 0 1 .02-1.06Z"
          clipRule="evenodd"
        />
      </svg>
    </div>
  );
}
