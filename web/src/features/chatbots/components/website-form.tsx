import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { DEFAULT_MAX_PAGES, MAX_PAGES_LIMIT, MAX_PAGES_MESSAGE, parseMaxPages, useAddUrlEntry } from '../hooks/use-add-url-entry';

/** Adds one web page, or with the checkbox the pages of its site up to a cap. */
export function WebsiteForm({ chatbotId }: { chatbotId: string }) {
  const { addWebsite, loading, error, setError, success } = useAddUrlEntry(chatbotId);
  const [url, setUrl] = useState('');
  const [crawl, setCrawl] = useState(false);
  const [maxPages, setMaxPages] = useState(String(DEFAULT_MAX_PAGES));
  const crawlId = useId();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!url.trim()) return;
    const pages = crawl ? parseMaxPages(maxPages) : DEFAULT_MAX_PAGES;
    if (pages === null) {
      setError(MAX_PAGES_MESSAGE);
      return;
    }
    if (await addWebsite({ url, crawl, maxPages: pages })) setUrl('');
  }

  return (
    <form onSubmit={handleSubmit} className="space-y-5" noValidate>
      {error ? <Alert>{error}</Alert> : null}
      {success ? <Alert tone="success">{success}</Alert> : null}
      <TextField
        label="Website address"
        name="url"
        type="url"
        inputMode="url"
        autoComplete="url"
        placeholder="https://example.com/help"
        hint="The page's main text is kept; menus and footers are left out."
        value={url}
        onChange={(e) => setUrl(e.target.value)}
      />
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="flex items-start gap-3">
          <input
            id={crawlId}
            type="checkbox"
            checked={crawl}
            aria-describedby={`${crawlId}-hint`}
            onChange={(e) => setCrawl(e.target.checked)}
            className="mt-0.5 size-4 rounded border-gray-300 accent-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500"
          />
          <div className="text-sm">
            <label htmlFor={crawlId} className="block font-medium text-gray-800">
              Include other pages of this site
            </label>
            <p id={`${crawlId}-hint`} className="text-gray-500">
              Follows its sitemap, or its links, on the same site; robots.txt is respected.
            </p>
          </div>
        </div>
        {crawl ? (
          <TextField
            label="Max pages"
            name="maxPages"
            type="number"
            min={1}
            max={MAX_PAGES_LIMIT}
            step={1}
            className="w-32"
            value={maxPages}
            onChange={(e) => setMaxPages(e.target.value)}
          />
        ) : null}
      </div>
      <div className="flex justify-end">
        <Button type="submit" disabled={!url.trim()} busy={loading} busyLabel="Adding...">
          Add Website
        </Button>
      </div>
    </form>
  );
}
