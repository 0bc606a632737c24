import { Card } from '../ui/card';

/** What a workspace page shows a member whose role lacks its permission: the page's own reason, worded by the page. */
export function NotAllowedCard({ message }: { message: string }) {
  return (
    <Card className="px-6 py-10 text-center">
      <h2 className="text-base font-semibold text-gray-900">Not allowed</h2>
      <p className="mt-1 text-sm text-gray-600">{message}</p>
    </Card>
  );
}
