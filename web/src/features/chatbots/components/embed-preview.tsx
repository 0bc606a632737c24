import { ChatIcon } from '../../../components/chatbots/chatbot-icons';
import { cn } from '../../../lib/cn';
import { textColorOn } from '../../../../chat-page/src/lib/text-color-on';
import { previewColor, type AppearanceForm } from '../embed-settings';

interface EmbedPreviewProps {
  uniqueId: string;
  chatbotName: string;
  /** The appearance as being edited: the launcher follows it before it is saved. */
  appearance: AppearanceForm;
  /** Changes when the appearance is saved, so the chat panel reloads with it. */
  revision: string;
}

/**
 * A phone-sized page with the widget open on it: the real embed page in the panel (as saved) and a
 * stand-in launcher drawn from the unsaved settings, so the owner sees a change before saving it.
 */
export function EmbedPreview({ uniqueId, chatbotName, appearance, revision }: EmbedPreviewProps) {
  const color = previewColor(appearance.primaryColor);
  const label = appearance.launcherLabel.trim();
  const left = appearance.position === 'left';

  return (
    <figure className="flex flex-col items-center">
      <div className="relative h-[540px] w-[288px] shrink-0 overflow-hidden rounded-[2rem] border-[6px] border-gray-900 bg-white shadow-lg">
        {/* A host page behind the widget. */}
        <div aria-hidden="true" className="space-y-2.5 px-4 pt-5">
          <div className="h-3 w-24 rounded-full bg-gray-200" />
          <div className="h-2 w-full rounded-full bg-gray-100" />
          <div className="h-2 w-5/6 rounded-full bg-gray-100" />
          <div className="h-2 w-4/6 rounded-full bg-gray-100" />
        </div>
        <div className="absolute inset-x-2.5 top-14 bottom-[4.25rem] overflow-hidden rounded-2xl bg-white shadow-xl ring-1 ring-gray-900/10">
          <iframe key={revision} title="Chat preview" src={`/embed/${uniqueId}`} loading="lazy" className="size-full border-0" />
        </div>
        <div
          role="img"
          aria-label={`Launcher preview: ${label || `Chat with ${chatbotName}`}`}
          style={{ backgroundColor: color, color: textColorOn(color) }}
          className={cn(
            'absolute bottom-3 inline-flex h-11 max-w-[calc(100%-1.5rem)] items-center gap-2 rounded-full text-sm font-semibold shadow-lg',
            left ? 'left-3' : 'right-3',
            label ? 'px-4' : 'w-11 justify-center',
          )}
        >
          <ChatIcon className="size-5 shrink-0" />
          {label ? <span className="truncate">{label}</span> : null}
        </div>
      </div>
      <figcaption className="mt-3 max-w-[288px] text-center text-xs text-gray-500">
        Preview: the button follows your edits at once; the chat shows what is saved.
      </figcaption>
    </figure>
  );
}
