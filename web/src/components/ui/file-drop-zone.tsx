import { useState, type ChangeEvent, type DragEvent, type ReactNode } from 'react';
import { cn } from '../../lib/cn';
import { buttonClasses } from './button-styles';
import { strokeIconProps } from './icon-props';

interface FileDropZoneProps {
  /** The picker's `accept` list; a dropped file is passed on as is (the caller or server checks it). */
  accept: string;
  /** Called with the one file picked or dropped. */
  onFile: (file: File) => void;
  /** Under the prompt, e.g. the types and the size limit. */
  hint?: ReactNode;
  disabled?: boolean;
}

/** A dashed area that takes a dropped file, with a "Choose file" button for those who do not drag. */
export function FileDropZone({ accept, onFile, hint, disabled = false }: FileDropZoneProps) {
  const [dragging, setDragging] = useState(false);

  function handleDrag(event: DragEvent<HTMLDivElement>, over: boolean) {
    event.preventDefault();
    if (!disabled) setDragging(over);
  }

  function handleDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file && !disabled) onFile(file);
  }

  function handlePick(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    // Cleared, so picking the same file again (after fixing it) still fires a change.
    event.target.value = '';
    if (file) onFile(file);
  }

  return (
    <div
      onDragEnter={(e) => handleDrag(e, true)}
      onDragOver={(e) => handleDrag(e, true)}
      onDragLeave={(e) => handleDrag(e, false)}
      onDrop={handleDrop}
      data-dragging={dragging || undefined}
      className={cn(
        'flex flex-col items-center rounded-xl border-2 border-dashed px-6 py-8 text-center transition-colors',
        dragging ? 'border-brand-500 bg-brand-50' : 'border-gray-300 bg-gray-50/60',
        disabled && 'opacity-60',
      )}
    >
      <svg {...strokeIconProps} className="size-8 text-gray-400">
        <path d="M12 16V4m0 0-4 4m4-4 4 4" />
        <path d="M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3" />
      </svg>
      <p className="mt-3 text-sm font-medium text-gray-800">Drag and drop a file here, or</p>
      <label
        className={buttonClasses(
          'secondary',
          'sm',
          cn(
            'mt-3 focus-within:outline-2 focus-within:outline-offset-2 focus-within:outline-brand-500',
            disabled ? 'pointer-events-none opacity-60' : 'cursor-pointer',
          ),
        )}
      >
        Choose file
        <input type="file" accept={accept} className="sr-only" disabled={disabled} onChange={handlePick} />
      </label>
      {hint ? <div className="mt-3 text-xs text-gray-500">{hint}</div> : null}
    </div>
  );
}
