// The API reference's renderer (Scalar), loaded only by the API reference page through a dynamic
// import: neither the dashboard's main bundle nor the public chat page carries it.
import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';
import { useMemo } from 'react';

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
    }),
    [document],
  );
  return <ApiReferenceReact configuration={configuration} />;
}
