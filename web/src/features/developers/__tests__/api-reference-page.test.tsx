import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockLink, sampleUser } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { OPENAPI_PATH, REFERENCE_MISSING_TEXT } from '../components/api-reference-page';

// The renderer itself is a browser's to run (the screens test draws it); here, the page around it.
vi.mock('../components/api-reference-view', () => ({
  default: ({ document }: { document: { info: { title: string } } }) => <p>Rendered {document.info.title}</p>,
}));

function openReference() {
  const mock = mockLink({ Me: () => ({ data: { me: sampleUser } }) });
  return renderApp('/developers/api', mock.link);
}

describe('API reference page', () => {
  afterEach(() => vi.restoreAllMocks());

  it("renders the API's OpenAPI document", async () => {
    const fetchMock = vi
      .spyOn(globalThis, 'fetch')
      .mockResolvedValue(new Response(JSON.stringify({ openapi: '3.1.0', info: { title: 'Parley API' } }), { status: 200 }));
    openReference();
    expect(await screen.findByText('Rendered Parley API')).toBeTruthy();
    expect(fetchMock.mock.calls[0]?.[0]).toBe(OPENAPI_PATH);
  });

  it('says plainly when the document is missing, and tries again on request', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const fetchMock = vi
      .spyOn(globalThis, 'fetch')
      .mockResolvedValueOnce(new Response('{"message":"Not found"}', { status: 404 }))
      .mockResolvedValueOnce(new Response(JSON.stringify({ openapi: '3.1.0', info: { title: 'Parley API' } }), { status: 200 }));
    openReference();
    expect((await screen.findByRole('alert')).textContent).toContain(REFERENCE_MISSING_TEXT);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Rendered Parley API')).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});
