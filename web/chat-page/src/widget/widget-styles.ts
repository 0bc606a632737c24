// Every style of the widget, inside its shadow root: the host page's CSS cannot reach the launcher
// and the panel, and these rules cannot leak out. `:host { all: initial }` also stops inherited
// properties (font, colour, line height) from coming in.
export const WIDGET_CSS = `
:host{all:initial}
*{box-sizing:border-box}
.launcher{position:fixed;bottom:20px;z-index:2147483000;display:inline-flex;align-items:center;gap:8px;height:56px;min-width:56px;justify-content:center;padding:0 16px;border:0;border-radius:28px;background:var(--accent);color:var(--on-accent);font:600 15px/1 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;box-shadow:0 6px 20px rgba(17,24,39,.25);cursor:pointer;transition:transform .15s}
.launcher:hover{transform:scale(1.05)}
.launcher:focus-visible{outline:3px solid var(--accent);outline-offset:3px}
.launcher.icon{width:56px;padding:0}
.launcher svg{width:26px;height:26px;flex:none}
.panel{position:fixed;bottom:88px;z-index:2147483001;width:400px;height:min(640px,calc(100dvh - 108px));border-radius:16px;overflow:hidden;background:#fff;box-shadow:0 12px 40px rgba(17,24,39,.3)}
.left{left:20px}.right{right:20px}
.panel[hidden]{display:none}
iframe{display:block;width:100%;height:100%;border:0}
.refusal{display:flex;height:100%;flex-direction:column;align-items:center;justify-content:center;gap:16px;padding:24px;text-align:center;color:#111827;font:500 15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.refusal button{padding:8px 16px;border:1px solid #d1d5db;border-radius:8px;background:#fff;color:#1f2937;font:inherit;cursor:pointer}
@media (max-width:640px){.panel{inset:0;width:auto;height:auto;border-radius:0}}
`;
