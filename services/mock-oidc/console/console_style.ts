/**
 * The console's stylesheet: one column on a narrow screen, the request list beside the forms on
 * a wide one; long values wrap instead of widening the page.
 * @module
 */

/** Served as `/_mock/ui/console.css`. */
export const CONSOLE_STYLE = `:root{--fg:#1d2330;--muted:#5b6473;--line:#e3e6eb;--accent:#2f5bd3;
--bad:#b3261e}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5f7;
color:var(--fg);line-height:1.4}
header{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;padding:.7rem 1rem;
background:#fff;border-bottom:1px solid var(--line)}
h1{font-size:1.15rem;margin:0}h2{font-size:1.05rem;margin:0 0 .5rem}h3{font-size:.9rem;
margin:.8rem 0 .2rem}
.badge{font-size:.7rem;background:#fde7c7;color:#6b3d00;padding:.1rem .4rem;border-radius:4px;
vertical-align:middle}
#status{margin:0;flex:1 1 12rem;font-size:.9rem;overflow-wrap:anywhere}#status.error{color:var(--bad)}
#token-form{margin:1rem;padding:1rem;background:#fff7e6;border:1px solid #f0c36d;border-radius:8px}
main{display:grid;gap:1rem;padding:1rem;grid-template-columns:minmax(0,1fr)}
@media (min-width:60rem){main{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}
#requests-section{grid-row:span 3}}
section{background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002;padding:1rem;min-width:0}
label{display:block;font-weight:600;margin:.5rem 0 .15rem;font-size:.9rem}
label small{font-weight:400;color:var(--muted)}
input,select,textarea{width:100%;padding:.4rem;border:1px solid #c5cad3;border-radius:4px;
font:inherit;min-width:0}
textarea{font-family:ui-monospace,monospace;font-size:.85rem;min-height:3.5rem}
[aria-invalid=true]{border-color:var(--bad);outline-color:var(--bad)}
button{margin:.5rem .4rem 0 0;padding:.4rem .9rem;border:0;border-radius:4px;background:var(--accent);
color:#fff;font:inherit;cursor:pointer}
button.secondary{background:#e8ebf0;color:var(--fg)}button.danger{background:var(--bad)}
.field-error,.form-error{color:var(--bad);margin:.15rem 0 0;font-size:.85rem}
.field-error:empty,.form-error:empty{display:none}
.note{color:var(--muted);font-size:.85rem}
.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:0 .6rem;
align-items:end}
.requests,.scenarios{padding:0;margin:0;list-style:none}
.requests li{border-top:1px solid var(--line)}
summary{cursor:pointer;padding:.35rem 0;overflow-wrap:anywhere}
summary time{color:var(--muted);font-size:.85rem}summary .issuer{color:var(--muted)}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f7f9;padding:.5rem;border-radius:4px;
font-size:.8rem;margin:.2rem 0}
table{border-collapse:collapse;width:100%;font-size:.8rem;table-layout:fixed}
th,td{border-top:1px solid var(--line);padding:.2rem .3rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere}
th{width:35%;font-weight:600}
`;
