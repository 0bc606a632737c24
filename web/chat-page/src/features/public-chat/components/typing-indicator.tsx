/** Three bouncing dots in an assistant bubble, until the first words of the answer arrive. */
export function TypingIndicator({ name }: { name: string }) {
  return (
    <div
      role="status"
      className="flex h-11 w-fit items-center gap-1 rounded-2xl rounded-bl-md border border-gray-200 bg-white px-4 shadow-xs"
    >
      <span className="sr-only">{name} is typing</span>
      <span aria-hidden="true" className="size-2 animate-bounce rounded-full bg-gray-400 [animation-delay:-0.3s]" />
      <span aria-hidden="true" className="size-2 animate-bounce rounded-full bg-gray-400 [animation-delay:-0.15s]" />
      <span aria-hidden="true" className="size-2 animate-bounce rounded-full bg-gray-400" />
    </div>
  );
}
