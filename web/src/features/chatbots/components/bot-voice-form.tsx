import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { fieldControlClasses } from '../../../components/ui/field-styles';
import { strokeIconProps } from '../../../components/ui/icon-props';
import { Switch } from '../../../components/ui/switch';
import { TextareaField } from '../../../components/ui/textarea-field';
import type { ChatbotVoiceFragment } from '../../../gql/graphql';
import { cn } from '../../../lib/cn';
import { formatCount } from '../../../lib/format';
import {
  MAX_INSTRUCTIONS_CHARS,
  MAX_NO_ANSWER_CHARS,
  MAX_SUGGESTED_QUESTION_CHARS,
  MAX_SUGGESTED_QUESTIONS,
  MAX_TEMPERATURE,
  MAX_WELCOME_CHARS,
  useUpdateChatbotVoice,
  type VoiceSettings,
} from '../hooks/use-update-chatbot-voice';

/** Where the slider rests while the product's default is used (it is not a value the owner chose). */
const DEFAULT_SLIDER_POSITION = 0.7;

function voiceOf(chatbot: ChatbotVoiceFragment): VoiceSettings {
  return {
    instructions: chatbot.instructions,
    temperature: chatbot.temperature ?? null,
    welcomeMessage: chatbot.welcomeMessage,
    suggestedQuestions: chatbot.suggestedQuestions.length > 0 ? chatbot.suggestedQuestions : [''],
    noAnswerMessage: chatbot.noAnswerMessage,
    answerInVisitorLanguage: chatbot.answerInVisitorLanguage,
  };
}

/** "1,234 / 4,000", red once over the limit. */
function CharacterCount({ length, max }: { length: number; max: number }) {
  return (
    <p className={cn('mt-1.5 text-right text-xs tabular-nums', length > max ? 'font-medium text-red-700' : 'text-gray-500')}>
      {formatCount(length)} / {formatCount(max)}
    </p>
  );
}

/**
 * The Bot voice card: the owner's instructions, temperature, the public page's welcome and suggested
 * questions, and what to say when the knowledge has no answer. The service checks the limits and
 * its messages are shown as they come.
 */
export function BotVoiceForm({ chatbot }: { chatbot: ChatbotVoiceFragment }) {
  const { saveVoice, loading, error, success } = useUpdateChatbotVoice(chatbot.id);
  const [voice, setVoice] = useState<VoiceSettings>(() => voiceOf(chatbot));
  const temperatureId = useId();
  const questionsId = useId();

  function change(patch: Partial<VoiceSettings>) {
    setVoice((current) => ({ ...current, ...patch }));
  }

  function setQuestion(index: number, value: string) {
    change({ suggestedQuestions: voice.suggestedQuestions.map((q, i) => (i === index ? value : q)) });
  }

  function removeQuestion(index: number) {
    const rest = voice.suggestedQuestions.filter((_, i) => i !== index);
    change({ suggestedQuestions: rest.length > 0 ? rest : [''] });
  }

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const saved = await saveVoice(voice);
    if (saved) setVoice(voiceOf({ ...chatbot, ...saved }));
  }

  const questions = voice.suggestedQuestions;

  return (
    <Card>
      <CardHeader title="Bot voice" description="How your chatbot speaks to visitors and greets them on its public page." />
      <CardBody>
        <form onSubmit={handleSubmit} className="space-y-6" noValidate>
          {error ? <Alert>{error}</Alert> : null}
          {success ? <Alert tone="success">{success}</Alert> : null}

          <div>
            <TextareaField
              label="Instructions"
              name="instructions"
              rows={5}
              placeholder="e.g. Answer warmly and briefly. Recommend the Pro plan to teams of five or more."
              hint="Tone, focus and what to recommend. Parley's own rules always come first, and visitors cannot override them or your instructions."
              value={voice.instructions}
              onChange={(e) => change({ instructions: e.target.value })}
            />
            <CharacterCount length={voice.instructions.length} max={MAX_INSTRUCTIONS_CHARS} />
          </div>

          <div>
            <div className="mb-1.5 flex items-center justify-between gap-2">
              <label htmlFor={temperatureId} className="text-sm font-medium text-gray-800">
                Temperature
              </label>
              <div className="flex items-center gap-2">
                <span className="text-sm font-medium text-gray-900 tabular-nums">
                  {voice.temperature === null ? 'Default' : voice.temperature.toFixed(1)}
                </span>
                <Button
                  variant="ghost"
                  size="sm"
                  className="h-7 px-2"
                  disabled={voice.temperature === null}
                  onClick={() => change({ temperature: null })}
                >
                  Reset to default
                </Button>
              </div>
            </div>
            <input
              id={temperatureId}
              type="range"
              min={0}
              max={MAX_TEMPERATURE}
              step={0.1}
              value={voice.temperature ?? DEFAULT_SLIDER_POSITION}
              aria-valuetext={voice.temperature === null ? 'Default' : voice.temperature.toFixed(1)}
              aria-describedby={`${temperatureId}-hint`}
              onChange={(e) => change({ temperature: Math.round(Number(e.target.value) * 10) / 10 })}
              className={cn('w-full accent-brand-600', voice.temperature === null && 'opacity-50')}
            />
            <div className="mt-1 flex justify-between text-xs text-gray-500">
              <span>Focused</span>
              <span>Creative</span>
            </div>
            <p id={`${temperatureId}-hint`} className="mt-1.5 text-xs text-gray-500">
              Lower keeps answers close to your knowledge; higher words them more freely.
            </p>
          </div>

          <div>
            <TextareaField
              label="Welcome message"
              name="welcomeMessage"
              rows={2}
              placeholder="Hi! Ask me anything about our products."
              hint="The first message visitors see on the public chat page. Leave empty for none."
              value={voice.welcomeMessage}
              onChange={(e) => change({ welcomeMessage: e.target.value })}
            />
            <CharacterCount length={voice.welcomeMessage.length} max={MAX_WELCOME_CHARS} />
          </div>

          <fieldset aria-describedby={`${questionsId}-hint`}>
            <legend className="text-sm font-medium text-gray-800">Suggested questions</legend>
            <p id={`${questionsId}-hint`} className="mt-0.5 text-xs text-gray-500">
              Up to {MAX_SUGGESTED_QUESTIONS}, shown as buttons visitors can tap to ask.
            </p>
            <ul className="mt-2 space-y-2">
              {questions.map((question, index) => (
                <li key={index} className="flex items-center gap-2">
                  <input
                    type="text"
                    aria-label={`Suggested question ${index + 1}`}
                    maxLength={MAX_SUGGESTED_QUESTION_CHARS}
                    placeholder={index === 0 ? 'What does it cost?' : ''}
                    value={question}
                    onChange={(e) => setQuestion(index, e.target.value)}
                    className={cn(fieldControlClasses, 'h-10')}
                  />
                  <Button
                    variant="ghost"
                    size="sm"
                    className="w-9 shrink-0 px-0 text-gray-500"
                    aria-label={`Remove suggested question ${index + 1}`}
                    disabled={questions.length === 1 && !question}
                    onClick={() => removeQuestion(index)}
                  >
                    <svg {...strokeIconProps} className="size-4">
                      <path d="M6 6l12 12M18 6 6 18" />
                    </svg>
                  </Button>
                </li>
              ))}
            </ul>
            <Button
              variant="secondary"
              size="sm"
              className="mt-2"
              disabled={questions.length >= MAX_SUGGESTED_QUESTIONS}
              onClick={() => change({ suggestedQuestions: [...questions, ''] })}
            >
              <span aria-hidden="true">+</span> Add question
            </Button>
          </fieldset>

          <div>
            <TextareaField
              label="No-answer message"
              name="noAnswerMessage"
              rows={2}
              placeholder="Sorry, I don't know that yet. Please email support@example.com."
              hint="Said when your knowledge base has no answer. Leave empty for Parley's wording."
              value={voice.noAnswerMessage}
              onChange={(e) => change({ noAnswerMessage: e.target.value })}
            />
            <CharacterCount length={voice.noAnswerMessage.length} max={MAX_NO_ANSWER_CHARS} />
          </div>

          <Switch
            label="Answer in the visitor's language"
            description="Replies in the language each visitor writes in, whatever the chatbot's language. Parley's own messages stay in the chatbot's language."
            checked={voice.answerInVisitorLanguage}
            onChange={(answerInVisitorLanguage) => change({ answerInVisitorLanguage })}
          />

          <div className="flex justify-end border-t border-gray-100 pt-5">
            <Button type="submit" busy={loading} busyLabel="Saving...">
              Save Voice
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
