import { useId, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { fieldControlClasses } from '../../../components/ui/field-styles';
import type { ChatbotEmbedFragment, LauncherPosition } from '../../../gql/graphql';
import { cn } from '../../../lib/cn';
import { appearanceChange, MAX_LAUNCHER_LABEL_CHARS, previewColor, type AppearanceForm } from '../embed-settings';
import { useUpdateChatbotEmbed } from '../hooks/use-update-chatbot-embed';

const positions: ReadonlyArray<{ value: LauncherPosition; label: string }> = [
  { value: 'left', label: 'Left' },
  { value: 'right', label: 'Right' },
];

export const checkboxClasses =
  'mt-0.5 size-4 shrink-0 rounded border-gray-300 accent-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 disabled:cursor-not-allowed';

interface EmbedAppearanceCardProps {
  chatbot: ChatbotEmbedFragment;
  form: AppearanceForm;
  onChange: (patch: Partial<AppearanceForm>) => void;
  onSaved: (saved: ChatbotEmbedFragment) => void;
  /** Hiding the badge is a Pro feature: other plans see the box disabled with the way to Pro. */
  pro: boolean;
  /** The live preview, beside the fields when there is room. */
  preview: ReactNode;
}

/** Colour, launcher side and text, and the "Powered by Parley" badge, beside a preview that follows every edit. */
export function EmbedAppearanceCard({ chatbot, form, onChange, onSaved, pro, preview }: EmbedAppearanceCardProps) {
  const { saveEmbed, loading, error, success } = useUpdateChatbotEmbed(chatbot.id);
  const id = useId();
  const change = appearanceChange(chatbot, form);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!change) return;
    const saved = await saveEmbed({ appearance: change });
    if (saved) onSaved(saved);
  }

  return (
    <Card>
      <CardHeader title="Appearance" description="How the chat button and panel look on your site and on the public page." />
      <CardBody className="@container">
        <div className="grid gap-8 @xl:grid-cols-[minmax(0,1fr)_auto]">
          <form onSubmit={handleSubmit} className="space-y-5" noValidate>
            {error ? <Alert>{error}</Alert> : null}
            {success ? <Alert tone="success">{success}</Alert> : null}

            <div>
              <div className="mb-1.5 flex items-center justify-between gap-2">
                <label htmlFor={`${id}-color`} className="text-sm font-medium text-gray-800">
                  Primary colour
                </label>
                <Button
                  variant="ghost"
                  size="sm"
                  className="h-7 px-2"
                  disabled={!form.primaryColor}
                  onClick={() => onChange({ primaryColor: '' })}
                >
                  Use Parley's colour
                </Button>
              </div>
              <div className="flex items-center gap-3">
                <input
                  type="color"
                  aria-label="Pick a colour"
                  value={previewColor(form.primaryColor)}
                  onChange={(e) => onChange({ primaryColor: e.target.value })}
                  className="h-11 w-14 shrink-0 cursor-pointer rounded-lg border border-gray-300 bg-white p-1 shadow-xs"
                />
                <input
                  id={`${id}-color`}
                  type="text"
                  spellCheck={false}
                  autoComplete="off"
                  maxLength={7}
                  placeholder="Parley's colour"
                  aria-describedby={`${id}-color-hint`}
                  value={form.primaryColor}
                  onChange={(e) => onChange({ primaryColor: e.target.value })}
                  className={cn(fieldControlClasses, 'h-11 font-mono')}
                />
              </div>
              <p id={`${id}-color-hint`} className="mt-1.5 text-xs text-gray-500">
                The launcher, your visitors' messages and the send button, as #rrggbb.
              </p>
            </div>

            <fieldset>
              <legend className="mb-1.5 text-sm font-medium text-gray-800">Position</legend>
              <div className="inline-grid grid-cols-2 gap-1 rounded-xl bg-gray-100 p-1">
                {positions.map(({ value, label }) => (
                  <label
                    key={value}
                    className={cn(
                      'cursor-pointer rounded-lg px-5 py-1.5 text-center text-sm font-medium transition-colors',
                      'has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-500',
                      form.position === value
                        ? 'bg-white text-gray-900 shadow-sm ring-1 ring-gray-200'
                        : 'text-gray-600 hover:text-gray-900',
                    )}
                  >
                    <input
                      type="radio"
                      name={`${id}-position`}
                      value={value}
                      checked={form.position === value}
                      onChange={() => onChange({ position: value })}
                      className="sr-only"
                    />
                    {label}
                  </label>
                ))}
              </div>
              <p className="mt-1.5 text-xs text-gray-500">The bottom corner the chat button sits in.</p>
            </fieldset>

            <div>
              <label htmlFor={`${id}-label`} className="mb-1.5 block text-sm font-medium text-gray-800">
                Launcher label
              </label>
              <input
                id={`${id}-label`}
                type="text"
                autoComplete="off"
                maxLength={MAX_LAUNCHER_LABEL_CHARS}
                placeholder="Icon only"
                aria-describedby={`${id}-label-hint`}
                value={form.launcherLabel}
                onChange={(e) => onChange({ launcherLabel: e.target.value })}
                className={cn(fieldControlClasses, 'h-11')}
              />
              <p id={`${id}-label-hint`} className="mt-1.5 flex justify-between gap-3 text-xs text-gray-500">
                <span>Text beside the icon, e.g. "Questions? Ask us". Empty: the icon alone.</span>
                <span className="tabular-nums">
                  {form.launcherLabel.length} / {MAX_LAUNCHER_LABEL_CHARS}
                </span>
              </p>
            </div>

            <div className="flex items-start gap-3">
              <input
                id={`${id}-badge`}
                type="checkbox"
                checked={form.hideBranding}
                disabled={!pro}
                aria-describedby={`${id}-badge-hint`}
                onChange={(e) => onChange({ hideBranding: e.target.checked })}
                className={checkboxClasses}
              />
              <div className="text-sm">
                <div className="flex flex-wrap items-center gap-2">
                  <label htmlFor={`${id}-badge`} className={cn('font-medium', pro ? 'text-gray-800' : 'text-gray-500')}>
                    Hide Powered by Parley badge
                  </label>
                  {pro ? null : <Badge tone="brand">PRO</Badge>}
                </div>
                <p id={`${id}-badge-hint`} className="text-gray-500">
                  {pro ? (
                    'Your chat carries only your name and picture.'
                  ) : (
                    <>
                      Custom branding is part of Pro.{' '}
                      <Link to="/pricing" className="font-medium text-brand-700 hover:text-brand-800 hover:underline">
                        Upgrade to Pro
                      </Link>
                    </>
                  )}
                </p>
              </div>
            </div>

            <div className="flex justify-end border-t border-gray-100 pt-5">
              <Button type="submit" disabled={!change} busy={loading} busyLabel="Saving...">
                Save Appearance
              </Button>
            </div>
          </form>
          <div className="@xl:border-l @xl:border-gray-100 @xl:pl-8">{preview}</div>
        </div>
      </CardBody>
    </Card>
  );
}
