/**
 * The console's own rules on top of the tool pages' shared stylesheet: one column on a narrow
 * screen, the request list beside the forms on a wide one.
 * @module
 */

/** Inlined after the shared stylesheet (allowed by its hash). */
export const CONSOLE_STYLE = `main{max-width:90rem}
.bar{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
.bar h1{margin:0}.bar button{margin-top:0}
#status{margin:0;flex:1 1 12rem;font-size:.9rem;overflow-wrap:anywhere}
#status.error{color:var(--bad)}
#token-form{margin:1rem 0;padding:.2rem 1rem 1rem;background:#fff7e6;border:1px solid #f0c36d;
border-radius:6px}
.console{display:grid;gap:0 1rem;grid-template-columns:minmax(0,1fr)}
@media (min-width:60rem){.console{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}
#requests-section{grid-row:span 6}}
section.card{min-width:0}
label small{font-weight:400;color:var(--muted)}
label{margin:.6rem 0 .2rem}button{margin:.6rem .4rem 0 0}
textarea{min-height:3.5rem}
[aria-invalid=true]{border-color:var(--bad);outline-color:var(--bad)}
.form-error{color:var(--bad);font-size:.85rem;margin:.2rem 0}
.field-error:empty,.form-error:empty{display:none}
.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:0 .6rem;
align-items:end}
.requests,.scenarios,.clients,.faults,.challenges{padding:0;margin:0;list-style:none}
.challenges li{padding:.2rem 0;overflow-wrap:anywhere}
a.button{display:inline-block;padding:.55rem 1.3rem;border-radius:4px;background:var(--accent);
color:#fff;text-decoration:none}
summary .dpop{font-size:.8rem;font-weight:600}summary .dpop.ok{color:var(--ok)}
summary .dpop.bad{color:var(--bad)}
.clients li.client{border-top:1px solid var(--line)}.clients table{margin:.3rem 0}
.clients ul.values{margin:0;padding-left:1rem}.clients td{overflow-wrap:anywhere}
.requests li{border-top:1px solid var(--line)}
.faults li{padding:.2rem 0;overflow-wrap:anywhere}
summary{cursor:pointer;padding:.35rem 0;overflow-wrap:anywhere}
summary time,summary .issuer{color:var(--muted);font-size:.85rem}
th{width:35%}
.badge.testing{background:#b06000}
`;
