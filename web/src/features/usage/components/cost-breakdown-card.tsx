import type { UsageReportQuery } from '../../../gql/graphql';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { formatCount, formatDollars } from '../../../lib/format';
import { NOT_AVAILABLE } from '../usage-csv';

type UsageReport = UsageReportQuery['usage'];

/** A share of the total for the bars; display only, so a float is fine here. */
function share(part: string, total: string): number {
  const whole = Number(total);
  return whole > 0 ? Math.min(100, (Number(part) / whole) * 100) : 0;
}

function CostRow({ label, amount, percent, dotClass }: { label: string; amount: string; percent: number; dotClass: string }) {
  return (
    <div className="flex items-center justify-between gap-4 py-2">
      <dt className="flex items-center gap-2 text-sm text-gray-600">
        <span className={`size-2.5 rounded-full ${dotClass}`} aria-hidden="true" />
        {label}
      </dt>
      <dd className="text-sm font-medium text-gray-900 tabular-nums">
        {formatDollars(amount, 5)}
        <span className="ml-2 text-xs font-normal text-gray-500">{Math.round(percent)}%</span>
      </dd>
    </div>
  );
}

/** Where the money went: input against output tokens, and each chatbot's part of the total. */
export function CostBreakdownCard({ report }: { report: UsageReport }) {
  const { totalCost, totalPromptCost, totalCompletionCost } = report.overallUsage;
  const inputShare = share(totalPromptCost, totalCost);
  const outputShare = share(totalCompletionCost, totalCost);
  const chatbots = [...report.usageByChatbot].sort((a, b) => Number(b.totalCost) - Number(a.totalCost));

  return (
    <Card className="flex flex-col">
      <CardHeader title="Cost Breakdown" />
      <CardBody className="flex-1 space-y-6">
        <div>
          <div className="flex h-2.5 overflow-hidden rounded-full bg-gray-100" aria-hidden="true">
            <div className="bg-brand-600" style={{ width: `${inputShare}%` }} />
            <div className="bg-sky-400" style={{ width: `${outputShare}%` }} />
          </div>
          <dl className="mt-3 divide-y divide-gray-100">
            <CostRow label="Input (prompt)" amount={totalPromptCost} percent={inputShare} dotClass="bg-brand-600" />
            <CostRow label="Output (completion)" amount={totalCompletionCost} percent={outputShare} dotClass="bg-sky-400" />
            <div className="flex items-center justify-between gap-4 py-2">
              <dt className="text-sm font-medium text-gray-900">Total</dt>
              <dd className="text-sm font-semibold text-gray-900 tabular-nums">{formatDollars(totalCost, 5)}</dd>
            </div>
          </dl>
        </div>

        {chatbots.length > 0 ? (
          <div>
            <h3 className="text-xs font-medium tracking-wide text-gray-500 uppercase">By chatbot</h3>
            <ul className="mt-3 space-y-3" aria-label="Cost by chatbot">
              {chatbots.map((chatbot) => (
                <li key={chatbot.chatbotId}>
                  <div className="flex items-baseline justify-between gap-3 text-sm">
                    <span className={`min-w-0 truncate ${chatbot.name ? 'font-medium text-gray-900' : 'text-gray-500'}`}>
                      {chatbot.name ?? NOT_AVAILABLE}
                    </span>
                    <span className="shrink-0 font-medium text-gray-900 tabular-nums">{formatDollars(chatbot.totalCost, 5)}</span>
                  </div>
                  <div className="mt-1.5 flex items-center gap-3">
                    <div className="h-1.5 flex-1 overflow-hidden rounded-full bg-gray-100" aria-hidden="true">
                      <div className="h-full rounded-full bg-brand-500" style={{ width: `${share(chatbot.totalCost, totalCost)}%` }} />
                    </div>
                    <span className="shrink-0 text-xs text-gray-500 tabular-nums">
                      {formatCount(chatbot.requests)} {chatbot.requests === 1 ? 'request' : 'requests'}
                    </span>
                  </div>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </CardBody>
    </Card>
  );
}
