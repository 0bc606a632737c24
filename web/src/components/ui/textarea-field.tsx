import { useId, type TextareaHTMLAttributes } from 'react';
import { cn } from '../../lib/cn';
import { fieldControlClasses } from './field-styles';

interface TextareaFieldProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: string;
  hint?: string;
}

export function TextareaField({ label, hint, className, id, ...rest }: TextareaFieldProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const hintId = hint ? `${inputId}-hint` : undefined;
  return (
    <div className={className}>
      <label htmlFor={inputId} className="mb-1.5 block text-sm font-medium text-gray-800">
        {label}
      </label>
      <textarea id={inputId} aria-describedby={hintId} className={cn(fieldControlClasses, 'resize-y py-2.5 leading-6')} {...rest} />
      {hint ? (
        <p id={hintId} className="mt-1.5 text-xs text-gray-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
