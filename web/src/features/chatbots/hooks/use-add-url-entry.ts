import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { AddUrlEntryMutation } from '../graphql/add-url-entry-mutation';
import { writeTextEntryResult } from './write-text-entry-result';

export const WEBSITE_ADDED_MESSAGE = 'Website added — processing…';
export const ADD_WEBSITE_FAILED_MESSAGE = 'Failed to add website';
export const MAX_PAGES_MESSAGE = 'Max pages must be a whole number from 1 to 100';
export const DEFAULT_MAX_PAGES = 20;
export const MAX_PAGES_LIMIT = 100;

export interface WebsiteInput {
  url: string;
  /** Also the other pages of the same site (its sitemap, else its links), at most `maxPages`. */
  crawl: boolean;
  maxPages: number;
}

/** The page cap as typed: a whole number from 1 to 100, or null. */
export function parseMaxPages(text: string): number | null {
  const value = Number(text.trim());
  return text.trim() && Number.isInteger(value) && value >= 1 && value <= MAX_PAGES_LIMIT ? value : null;
}

/** Adds a web page (or its site) to the knowledge base; its entries arrive in status processing. */
export function useAddUrlEntry(chatbotId: string) {
  const [mutate, { loading }] = useMutation(AddUrlEntryMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function addWebsite({ url, crawl, maxPages }: WebsiteInput): Promise<boolean> {
    if (!url.trim() || loading) return false;
    setError(null);
    success.clear();
    try {
      await mutate({
        variables: { chatbotId, url: url.trim(), crawl, maxPages: crawl ? maxPages : undefined },
        update(cache, { data }) {
          if (data) writeTextEntryResult(cache, chatbotId, data.addUrlEntry);
        },
      });
      success.show(WEBSITE_ADDED_MESSAGE);
      return true;
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? ADD_WEBSITE_FAILED_MESSAGE);
      return false;
    }
  }

  return { addWebsite, loading, error, setError, success: success.message };
}
