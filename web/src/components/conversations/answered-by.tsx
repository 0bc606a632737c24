/** The model that gave an answer, as the catalogue names it; null for every other message. */
export interface AnsweringModel {
  displayName: string;
}

/** What the owner reads under a bot answer: the model's name, and when the fallback answered, that it did. */
export const answeredByText = (model: AnsweringModel, fallback: boolean): string =>
  fallback ? `Answered by the fallback model (${model.displayName})` : model.displayName;

/**
 * A small muted line under a bot answer wherever members read a conversation (a chatbot's History,
 * the inbox): the model that answered, and when the chosen model failed and its fallback answered,
 * that the fallback did. Nothing for a message no model wrote.
 */
export function AnsweredBy({
  model,
  fallback,
  className,
}: {
  model: AnsweringModel | null | undefined;
  fallback: boolean;
  className?: string;
}) {
  if (!model) return null;
  return (
    <p className={className ?? 'mt-1 text-[11px] text-gray-500'} data-testid="answered-by">
      {answeredByText(model, fallback)}
    </p>
  );
}
