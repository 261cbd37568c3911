/**
 * The stylesheet of mock-oidc's own tool pages (debugger, control-plane console): a TypeScript
 * string, so `deno compile` embeds it and nothing is fetched; inlined and allowed by its hash.
 * One column, wrapping code blocks and scrolling tables keep it readable on a narrow screen.
 *
 * @module
 */

/** The shared stylesheet (inlined by `pageResponse`; its sha256 is in the page's CSP). */
export const STYLESHEET = `
:root{color-scheme:light;--fg:#1d2330;--muted:#5b6473;--line:#d9dde4;--bg:#f4f5f7;
--accent:#2f5bd3;--ok:#137333;--bad:#b3261e}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:var(--bg);
color:var(--fg);line-height:1.45}
main{max-width:64rem;margin:1.5rem auto;padding:1.5rem;background:#fff;border-radius:8px;
box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin:0 0 .8rem}h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .4rem}
p{margin:.5rem 0}.note{color:var(--muted)}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
input,select,textarea{width:100%;padding:.5rem;border:1px solid #c5cad3;border-radius:4px;
font:inherit;background:#fff}
input[type=checkbox],input[type=radio]{width:auto;margin-right:.4rem}
label.inline{display:flex;align-items:center;font-weight:400}
textarea{font-family:ui-monospace,monospace;min-height:6rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:1rem 0;padding:.4rem 1rem 1rem;
min-width:0}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(15rem,100%),1fr));gap:0 1rem}
button{margin-top:1rem;padding:.55rem 1.3rem;border:0;border-radius:4px;background:var(--accent);
color:#fff;font:inherit;cursor:pointer}
button.secondary{background:#fff;color:var(--accent);border:1px solid var(--accent)}
button.danger{background:var(--bad)}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;
overflow-wrap:anywhere}
pre{background:#f6f8fa;border:1px solid var(--line);border-radius:4px;padding:.7rem;margin:.4rem 0;
white-space:pre-wrap;overflow-wrap:anywhere;max-height:32rem;overflow:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem;display:block;overflow-x:auto}
th,td{text-align:left;vertical-align:top;border-top:1px solid var(--line);padding:.35rem .5rem;
overflow-wrap:anywhere}
.badge{display:inline-block;padding:.1rem .5rem;border-radius:999px;font-size:.8rem;
font-weight:600;color:#fff;background:var(--muted)}
.badge.ok{background:var(--ok)}.badge.bad{background:var(--bad)}
.error{color:var(--bad);font-weight:600}
.field-error{color:var(--bad);font-size:.85rem;margin:.2rem 0}
section.card{border:1px solid var(--line);border-radius:6px;padding:.2rem 1rem .8rem;margin:1rem 0}
@media (max-width:40rem){main{margin:0;border-radius:0;padding:1rem;box-shadow:none}
h1{font-size:1.2rem}}
`;
