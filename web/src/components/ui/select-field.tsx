import { useId, type SelectHTMLAttributes } from 'react';
import { cn } from '../../lib/cn';
import { fieldControlClasses } from './field-styles';

interface SelectFieldProps extends SelectHTMLAttributes<HTMLSelectElement> {
  label: string;
  /** A disabled option is shown but cannot be chosen (e.g. one the plan does not allow). */
  options: ReadonlyArray<{ value: string; label: string; disabled?: boolean }>;
  /** The label is read by screen readers only (a toolbar's compact picker). */
  hideLabel?: boolean;
  /** Classes added to the select itself (its height and width). */
  controlClassName?: string;
}

export function SelectField({ label, options, hideLabel, controlClassName = 'h-11', className, id, ...rest }: SelectFieldProps) {
  const generatedId = useId();
  const selectId = id ?? generatedId;
  return (
    <div className={className}>
      <label htmlFor={selectId} className={hideLabel ? 'sr-only' : 'mb-1.5 block text-sm font-medium text-gray-800'}>
        {label}
      </label>
      <div className="relative">
        <select id={selectId} className={cn(fieldControlClasses, controlClassName, 'appearance-none pr-10')} {...rest}>
          {options.map((option) => (
            <option key={option.value} value={option.value} disabled={option.disabled}>
              {option.label}
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
    </div>
  );
}
