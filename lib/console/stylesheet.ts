/**
 * The one stylesheet of the account page and the tenant console (docs/api.md 15.1): inline,
 * allowed by its hash. Narrow screens first (readable at 360 px); the accent colour comes
 * from the tenant's `--accent` (lib/hosted/branding.ts), with the default's blue otherwise.
 * Focus is always visible; targets are at least 44 px high.
 */
export const CONSOLE_STYLESHEET = `
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f4f5f7}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;padding:.5rem 1rem;background:#fff}
.skip:focus{left:0;z-index:10}
.brand{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.75rem 1rem;background:var(--accent,#1d4ed8);color:var(--on-accent,#fff)}
.brand img{max-height:2.5rem;max-width:10rem}
.brand .name{font-weight:700;font-size:1.1rem;margin:0}
.brand .who{margin:0 0 0 auto;font-size:.9rem}
.brand a{color:inherit}
.shell{max-width:64rem;margin:0 auto;padding:1rem}
nav ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
nav a{display:block;padding:.6rem .8rem;border-radius:.3rem;text-decoration:none;min-height:2.75rem}
nav a[aria-current=page]{background:#fff;font-weight:700;box-shadow:inset 0 -3px 0 var(--accent,#1d4ed8);color:#1a1a1a}
main{background:#fff;border-radius:.5rem;box-shadow:0 1px 3px #0002;padding:1rem 1rem 1.5rem;overflow-wrap:anywhere}
main:focus{outline:none}
h1{font-size:1.5rem;margin:.25rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
section+section{border-top:1px solid #ddd;margin-top:1.5rem}
label,legend{display:block;font-weight:600;margin:.75rem 0 .25rem}
fieldset{border:0;margin:0;padding:0}
.hint{color:#4a4a4a;font-size:.9rem;margin:.1rem 0 .3rem}
input,select,textarea{width:100%;max-width:32rem;padding:.6rem;font:inherit;border:1px solid #6b6b6b;border-radius:.3rem;background:#fff;color:inherit}
input[type=checkbox],input[type=radio]{width:auto;min-height:0}
.check{display:flex;flex-wrap:wrap;align-items:center;gap:0 .6rem}
.check>input{width:1.25rem;height:1.25rem;margin:0}
.check>label{flex:1 1 0;min-width:0;margin:.5rem 0;font-weight:400}
.check>.hint,.check>.field-error{flex-basis:100%}
[aria-invalid=true]{border:2px solid #b00020}
.field-error{color:#b00020;font-weight:600;margin:.25rem 0}
button,.button{display:inline-block;font:inherit;padding:.6rem 1rem;margin:1rem .5rem 0 0;border-radius:.3rem;border:1px solid var(--accent,#1d4ed8);background:var(--accent,#1d4ed8);color:var(--on-accent,#fff);min-height:2.75rem;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:#1d4ed8;border-color:#1d4ed8}
button.danger{background:#b00020;border-color:#b00020;color:#fff}
button.link{background:none;border:0;color:#1d4ed8;text-decoration:underline;padding:.6rem .25rem;margin:0}
.inline{display:inline}
.flash{border-left:4px solid #15803d;background:#f0fdf4;padding:.5rem .75rem;margin:0 0 1rem}
.flash:empty{display:none}
.summary{border:3px solid #b00020;padding:.5rem 1rem;margin:0 0 1rem}
.summary h2{margin:.25rem 0;color:#b00020}
.error{color:#b00020;font-weight:600}
.secret{font-family:ui-monospace,monospace;background:#f4f5f7;padding:.5rem;border-radius:.3rem;word-break:break-all}
.secret-list{font-family:ui-monospace,monospace;columns:2;list-style:none;padding:0}
.qr{max-width:16rem;background:#fff;padding:.5rem}
.qr svg{width:100%;height:auto;display:block}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.5rem .4rem;border-bottom:1px solid #ddd;vertical-align:top}
dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.25rem 1rem}
dt{font-weight:600}
dd{margin:0}
.cards{list-style:none;padding:0;margin:0}
.cards>li{border:1px solid #ddd;border-radius:.4rem;padding:.5rem .75rem;margin:.5rem 0}
.lang{margin:1rem 0;font-size:.9rem}
.lang button{margin:0 .25rem 0 0}
@media (max-width:40rem){.shell{padding:.5rem}dl{grid-template-columns:1fr}.secret-list{columns:1}table,thead,tbody,tr,th,td{display:block}thead{position:absolute;left:-999px}td{border:0;padding:.15rem 0}tr{border-bottom:1px solid #ddd;padding:.5rem 0}}
`;
