import Router from '@koa/router';

/**
 * The dashboard's stylesheet, on top of /assets/slipway.css (its colours, inputs, buttons and focus
 * ring). Narrow screens: tables become one card per row, forms one column, nothing scrolls sideways.
 */
export const DASHBOARD_CSS = `body.dash{overflow-wrap:break-word;--on-accent:#fff;--on-err:#fff;--input-border:#6b7480}
@media (prefers-color-scheme:dark){body.dash{--on-accent:#0b1220;--on-err:#0b1220;--input-border:#8b95a1}}
.dash button{background:var(--accent);color:var(--on-accent)}
.dash button.secondary{background:transparent;color:var(--fg);border:1px solid var(--input-border)}
.dash input:not([type=checkbox]):not([type=radio]),.dash select,.dash textarea{border-color:var(--input-border)}
.dash :focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.dash a{color:var(--accent)}
.skip-link{position:absolute;left:-9999px;top:.5rem;z-index:10;background:var(--card);padding:.5rem 1rem;border:1px solid var(--border);border-radius:.4rem}
.skip-link:focus{left:.5rem}
.topbar{background:var(--card);border-bottom:1px solid var(--border);padding:.6rem 1rem .4rem}
.topbar-row,.nav,.content{max-width:72rem;margin-left:auto;margin-right:auto}
.topbar-row{display:flex;align-items:center;justify-content:space-between;gap:.5rem 1rem;flex-wrap:wrap}
.topbar .brand{margin:0;font-size:1.2rem;text-decoration:none}
.signout{display:flex;align-items:center;gap:.5rem;flex-wrap:wrap;margin:0;min-width:0}
.who{color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}
.role{display:inline-block;margin-left:.25rem;padding:0 .45rem;border:1px solid var(--border);border-radius:999px;font-size:.75rem;text-transform:uppercase;letter-spacing:.03em}
.nav{margin-top:.4rem}
.nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .5rem;align-items:center}
.nav-group{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .5rem;padding:0 .25rem;border-left:1px solid var(--border);border-right:1px solid var(--border)}
.nav-label{color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;padding-left:.25rem}
.nav a{display:inline-block;padding:.35rem .6rem;border-radius:.4rem;color:var(--fg);text-decoration:none}
.nav a:hover,.nav summary:hover{background:var(--bg)}
.nav-menu{display:none;position:relative}
.nav summary{display:inline-block;padding:.35rem .6rem;border-radius:.4rem;cursor:pointer;list-style:none;color:var(--fg)}
.nav summary::-webkit-details-marker{display:none}
.nav summary::after{content:" ▾";font-size:.8em}
.nav summary.current{background:var(--accent);color:var(--on-accent)}
.nav details ul{position:absolute;left:0;top:100%;z-index:5;display:flex;flex-direction:column;align-items:stretch;min-width:11rem;margin-top:.25rem;padding:.35rem;background:var(--card);border:1px solid var(--input-border);border-radius:.5rem;box-shadow:0 4px 12px rgba(0,0,0,.15)}
.nav a[aria-current=page]{background:var(--accent);color:var(--on-accent)}
.content{padding:1rem 1rem 3rem;max-width:74rem}
.content:focus{outline:none}
.dash h1{font-size:1.5rem;margin:.5rem 0 1rem}
.dash h2{font-size:1.15rem;margin:0 0 .75rem}
.dash h3{font-size:1rem;margin:1.5rem 0 .6rem;padding-top:1rem;border-top:1px solid var(--border)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.spaced{margin-top:1rem}
.crumb{margin:.5rem 0 0;color:var(--muted);font-size:.9rem}
.crumb+h1{margin-top:.1rem}
.page-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
.page-head h1{margin-bottom:.5rem}
.panel{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:1rem;margin:0 0 1.25rem;min-width:0}
.panel>:last-child{margin-bottom:0}
.dash button{margin-top:0;min-height:2.5rem}
.dash button.small{padding:.35rem .8rem;min-height:2.25rem;font-size:.9rem}
.dash button.danger{background:var(--err);color:var(--on-err)}
.dash button.link{background:none;border:0;color:var(--accent);padding:.35rem 0;min-height:0;text-decoration:underline;font-weight:400}
.dash select,.dash textarea{width:100%;padding:.6rem;font:inherit;border:1px solid var(--input-border);border-radius:.4rem;background:var(--card);color:inherit}
.dash textarea{resize:vertical}
.dash input[type=checkbox],.dash input[type=radio]{flex:none;width:1.1rem;height:1.1rem;margin:.2rem 0 0;accent-color:var(--accent)}
.dash label{margin:0 0 .25rem}
.field{margin:0 0 .9rem;min-width:0}
.choices{border:0;padding:0;min-width:0}
.choices legend{font-weight:600;padding:0;margin-bottom:.25rem}
.dash label.choice{display:inline-flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.2rem 1.25rem .2rem 0}
.hint{color:var(--muted);font-size:.875rem;margin:.3rem 0 0}
.field-error{color:var(--err);font-weight:600;font-size:.9rem;margin:.3rem 0 0}
.has-error input,.has-error select,.has-error textarea{border-color:var(--err);border-width:2px}
.form-problem{border:1px solid var(--err);border-left-width:4px;padding:.5rem .75rem;border-radius:.4rem;color:var(--err);margin:0 0 1rem}
.form-problem p{margin:.2rem 0}
.form-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,15rem),1fr));gap:0 1rem}
.form-actions{display:flex;gap:.5rem 1rem;flex-wrap:wrap;align-items:center;margin-top:.25rem}
.flash{padding:.6rem .9rem;border-radius:.4rem;border:1px solid var(--border);border-left:4px solid #1a7f37;background:var(--card);margin:0 0 1rem}
.flash-error{border-left-color:var(--err);color:var(--err)}
.problem{font-size:1.05rem}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin-bottom:.75rem}
.filters .field{margin:0;flex:1 1 10rem}
.table-wrap{min-width:0}
table.list{width:100%;border-collapse:collapse}
.list th,.list td{text-align:left;padding:.55rem .6rem;border-bottom:1px solid var(--border);vertical-align:middle}
.list th{font-size:.8rem;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.03em}
.list tr:last-child td{border-bottom:0}
.empty{color:var(--muted);margin:.5rem 0}
.row-actions{display:flex;gap:.4rem .6rem;flex-wrap:wrap;align-items:center}
form.inline{display:inline-flex;gap:.4rem;align-items:center;flex-wrap:wrap;margin:0;max-width:100%;min-width:0}
.row-actions>*{max-width:100%;min-width:0}
form.inline select{width:auto;max-width:100%;min-width:0;padding:.35rem}
form.inline label{margin:0;font-weight:400}
.badge{display:inline-block;padding:.05rem .55rem;border-radius:999px;font-size:.8rem;font-weight:600;border:1px solid transparent;background:#eaeef2;color:#424a53;white-space:nowrap}
.badge-active,.badge-succeeded{background:#dafbe1;color:#116329}
.badge-paused,.badge-queued,.badge-building,.badge-deploying{background:#fff8c5;color:#6c4400}
.badge-failed,.badge-revoked{background:#ffebe9;color:#a40e26}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
.masked{letter-spacing:.15em;color:var(--muted)}
dl.props{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1rem;margin:0}
dl.props dt{color:var(--muted)}
dl.props dd{margin:0;min-width:0}
.secret-box{border:2px solid var(--accent);border-radius:.6rem;padding:1rem;background:var(--card);margin:0 0 1.25rem}
.warning{margin:0 0 .75rem}
.copy-row{display:flex;gap:.5rem;align-items:stretch}
.copy-row input{flex:1;min-width:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.copy-status{min-height:1.5em;margin:.4rem 0 0;color:var(--muted)}
.pager{display:flex;gap:.5rem 1rem;align-items:center;justify-content:space-between;flex-wrap:wrap;margin:.75rem 0 0}
.list-count{margin:.75rem 0 0;font-size:.9rem}
.confirm{max-width:40rem}
.narrow{max-width:34rem}
.dash a.button{display:inline-block;padding:.6rem 1.2rem;border-radius:.4rem;background:var(--accent);color:var(--on-accent);font-weight:600;text-decoration:none}
.tabs{margin:0 0 1rem;border-bottom:1px solid var(--border)}
.tabs ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:0 .25rem}
.tabs a{display:inline-block;padding:.5rem .8rem;color:var(--fg);text-decoration:none;border-bottom:3px solid transparent;white-space:nowrap}
.tabs a:hover{border-bottom-color:var(--input-border)}
.tabs a[aria-current=page]{border-bottom-color:var(--accent);font-weight:600}
ol.history{margin:0;padding-left:1.25rem}
ol.history li{margin:.35rem 0}
.history-when{font-variant-numeric:tabular-nums}
dl.event-data{margin:0;display:grid;gap:.1rem}
dl.event-data div{display:flex;gap:.4rem;flex-wrap:wrap;min-width:0}
dl.event-data dt{color:var(--muted);font-size:.85rem}
dl.event-data dd{margin:0;min-width:0}
.add-user:has(input[name=credential][value=link]:checked) .password-only{display:none}
@media (max-width:640px){
.content{padding:.75rem .75rem 2rem}
.panel{padding:.75rem}
.topbar{padding:.5rem .75rem .3rem}
.nav-group{border:0;padding:0}
.nav-wide{display:none}
.nav-menu{display:block}
.nav>ul{flex-wrap:nowrap;gap:.15rem}
.nav a,.nav summary{padding:.35rem .5rem;white-space:nowrap}
.signout button{white-space:nowrap}
.topbar-row,.signout{flex-wrap:nowrap}
.signout{min-width:0}
.signout .who{min-width:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.signout .role{display:none}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack tr{border-bottom:1px solid var(--border);padding:.4rem 0}
table.stack tr:last-child{border-bottom:0}
table.stack td{border:0;padding:.25rem 0 .25rem 7rem;position:relative;min-height:1.9rem}
table.stack td::before{content:attr(data-label);position:absolute;left:0;top:.35rem;width:6.5rem;color:var(--muted);font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.03em}
}
`;

/**
 * The one script dashboard pages may run (CSP `script-src 'self'`): the copy button next to a secret
 * that is shown once. Without it the secret is still selectable in its read-only field.
 */
export const DASHBOARD_JS = `'use strict';
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var id = button.getAttribute('data-copy');
  var field = document.getElementById(id);
  var status = document.querySelector('[data-copy-status="' + id + '"]');
  if (!field) return;
  button.hidden = false;
  function report(ok) {
    if (status) status.textContent = ok ? 'Copied to the clipboard.' : 'Could not copy automatically: the value is selected, copy it with your keyboard.';
  }
  button.addEventListener('click', function () {
    field.focus();
    field.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(function () { report(true); }, function () { report(document.execCommand('copy')); });
    } else {
      report(document.execCommand('copy'));
    }
  });
});
`;

export function createDashboardAssetsRouter() {
  const router = new Router();
  router.get('/assets/dashboard.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = DASHBOARD_CSS;
  });
  router.get('/assets/dashboard.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = DASHBOARD_JS;
  });
  return router;
}
