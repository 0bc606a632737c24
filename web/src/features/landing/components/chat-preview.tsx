import { LogoMark } from '../../../components/ui/logo';

// A static illustration of a public chat page, so visitors see what they are about to build.
export function ChatPreview() {
  return (
    <div aria-hidden="true" className="relative mx-auto w-full max-w-md">
      <div className="absolute -inset-4 -z-10 rounded-[2rem] bg-linear-to-tr from-brand-100 via-white to-brand-50 blur-2xl" />
      <div className="overflow-hidden rounded-2xl border border-gray-200 bg-white shadow-xl shadow-brand-900/5">
        <div className="flex items-center gap-3 border-b border-gray-100 px-4 py-3">
          <span className="flex size-9 items-center justify-center rounded-full bg-brand-100 text-sm font-semibold text-brand-700">AC</span>
          <div>
            <p className="text-sm font-semibold text-gray-900">Acme Support</p>
            <p className="flex items-center gap-1.5 text-xs text-gray-500">
              <span className="size-1.5 rounded-full bg-green-500" /> Online
            </p>
          </div>
        </div>
        <div className="space-y-3 bg-gray-50/60 px-4 py-5 text-sm">
          <div className="ml-auto w-fit max-w-[80%] rounded-2xl rounded-br-md bg-brand-600 px-3.5 py-2 text-white">
            Can I return an item after 30 days?
          </div>
          <div className="flex gap-2">
            <LogoMark className="size-6 shrink-0" />
            <div className="w-fit max-w-[80%] rounded-2xl rounded-bl-md border border-gray-200 bg-white px-3.5 py-2 text-gray-800">
              Returns are accepted within 45 days with a receipt. After that we can offer store credit.
            </div>
          </div>
          <div className="ml-auto w-fit max-w-[80%] rounded-2xl rounded-br-md bg-brand-600 px-3.5 py-2 text-white">Great, thanks!</div>
        </div>
        <div className="flex items-center gap-2 border-t border-gray-100 px-4 py-3">
          <div className="h-9 flex-1 rounded-lg border border-gray-200 bg-white px-3 text-sm leading-9 text-gray-500">
            Type your message...
          </div>
          <span className="flex size-9 items-center justify-center rounded-lg bg-brand-600 text-white">
            <svg className="size-4" viewBox="0 0 20 20" fill="currentColor">
              <path d="M3.1 2.3a.75.75 0 0 0-.95.95l2 6.25H10a.75.75 0 0 1 0 1.5H4.15l-2 6.25a.75.75 0 0 0 .95.95l15-7.5a.75.75 0 0 0 0-1.3l-15-7.5Z" />
            </svg>
          </span>
        </div>
      </div>
    </div>
  );
}
