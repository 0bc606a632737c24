// The API reference's renderer (Scalar), loaded only by the API reference page through a dynamic
// import: neither the dashboard's main bundle nor the public chat page carries it.
import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';
import { useMemo } from 'react';

// The theme's muted text and method colours, darkened to read at 4.5:1 or more on its light backgrounds.
const READABLE_COLOURS = `.light-mode {
  --scalar-color-2: #4b4b4b;
  --scalar-color-3: #5c5c5c;
  --scalar-color-green: #047857;
  --scalar-color-yellow: #8a5300;
  --scalar-color-red: #b91c1c;
  --scalar-color-blue: #1d4ed8;
  --scalar-color-orange: #b7410e;
  --scalar-color-purple: #7e22ce;
}`;

export default function ApiReferenceView({ document }: { document: object }) {
  const configuration = useMemo(
    () => ({
      content: document,
      // Everything from this origin: no fonts or telemetry from elsewhere (the CSP allows neither).
      withDefaultFonts: false,
      telemetry: false,
      hideDarkModeToggle: true,
      forceDarkModeState: 'light' as const,
      showDeveloperTools: 'never' as const,
      agent: { disabled: true },
      customCss: READABLE_COLOURS,
    }),
    [document],
  );
  return <ApiReferenceReact configuration={configuration} />;
}
