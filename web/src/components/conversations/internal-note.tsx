/**
 * A member's internal note wherever members read a conversation (the inbox, a chatbot's History):
 * set apart (amber, dashed, "Internal note · name") so nobody mistakes it for what the visitor saw.
 * `when` is the time as the list formats it; null leaves it out.
 */
export function InternalNote({ authorName, content, when }: { authorName: string | null; content: string; when: string | null }) {
  return (
    <li className="rounded-xl border border-dashed border-amber-300 bg-amber-50 px-4 py-3" aria-label="Internal note">
      <p className="text-xs font-semibold text-amber-900">
        Internal note{authorName ? ` · ${authorName}` : ''}
        {when ? <span className="font-normal text-amber-800"> · {when}</span> : null}
      </p>
      <p className="mt-1 text-sm break-words whitespace-pre-wrap text-gray-900">{content}</p>
    </li>
  );
}
