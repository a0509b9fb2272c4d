import { html, pageHead, type Html } from '../lib/html.ts';

export type NavItem = 'projects' | 'events' | 'api-keys' | 'users' | 'oauth-apps' | 'webhooks' | 'trusted-ci' | 'account';

export interface Flash {
  kind: 'success' | 'error';
  text: string;
}

/** Who is signed in, for the header; absent on pages shown without a session. */
export interface Viewer {
  email: string;
  role: string;
  csrf: string;
}

export interface PageOptions {
  title: string;
  body: Html;
  active?: NavItem;
  viewer?: Viewer;
  flash?: Flash | undefined;
}

/**
 * The navigation, in order. Entries with a `group` are shown together under that group's label; adding a
 * page to the navigation is one line here.
 */
const NAV: { key: NavItem; href: string; label: string; group?: 'Settings' }[] = [
  { key: 'projects', href: '/dashboard/projects', label: 'Projects' },
  { key: 'events', href: '/dashboard/events', label: 'Events' },
  { key: 'api-keys', href: '/dashboard/settings/api-keys', label: 'API Keys', group: 'Settings' },
  { key: 'users', href: '/dashboard/settings/users', label: 'Users', group: 'Settings' },
  { key: 'oauth-apps', href: '/dashboard/settings/oauth-apps', label: 'OAuth Apps', group: 'Settings' },
  { key: 'webhooks', href: '/dashboard/settings/webhooks', label: 'Webhooks', group: 'Settings' },
  { key: 'trusted-ci', href: '/dashboard/settings/trusted-ci', label: 'Trusted CI', group: 'Settings' },
  { key: 'account', href: '/dashboard/account', label: 'Account' },
];

/** The navigation entry a dashboard path belongs to (its own page or one below it). */
export const navItemOf = (path: string): NavItem | undefined => NAV.find((item) => path === item.href || path.startsWith(`${item.href}/`))?.key;

const link = (item: (typeof NAV)[number], active: NavItem | undefined) =>
  html`<a href="${item.href}"${item.key === active ? html` aria-current="page"` : ''}>${item.label}</a>`;

/** One list: plain entries as they come, each group as one entry holding its own labelled list. */
function nav(active: NavItem | undefined): Html {
  const entries: Html[] = [];
  const seen = new Set<string>();
  for (const item of NAV) {
    if (!item.group) {
      entries.push(html`<li>${link(item, active)}</li>`);
      continue;
    }
    if (seen.has(item.group)) continue;
    seen.add(item.group);
    const id = `nav-${item.group.toLowerCase()}`;
    const members = NAV.filter((n) => n.group === item.group);
    const current = members.some((n) => n.key === active);
    // Wide screens show the group inline; narrow ones a disclosure menu (no script), so the navigation
    // stays one row. Only one of the two is displayed, so only one is in the accessibility tree.
    entries.push(
      html`<li class="nav-group nav-wide"><span class="nav-label" id="${id}">${item.group}</span><ul aria-labelledby="${id}">${members.map((n) => html`<li>${link(n, active)}</li>`)}</ul></li>`,
      html`<li class="nav-menu"><details><summary${current ? html` class="current"` : ''}>${item.group}</summary><ul>${members.map((n) => html`<li>${link(n, active)}</li>`)}</ul></details></li>`,
    );
  }
  return html`<nav class="nav" aria-label="Dashboard">
<ul>
${entries}
</ul>
</nav>`;
}

/** The dashboard's page frame: header with navigation and the sign-out form, then the page. */
export function renderPage({ title, body, active, viewer, flash }: PageOptions): string {
  return html`${pageHead({ title, site: 'Slipway Dashboard', stylesheets: ['/assets/slipway.css', '/assets/dashboard.css'], scripts: ['/assets/dashboard.js'] })}
<body class="dash">
<a class="skip-link" href="#main">Skip to content</a>
<header class="topbar">
<div class="topbar-row">
<a class="brand" href="/dashboard">Slipway</a>
${
  viewer
    ? html`<form class="signout" method="post" action="/dashboard/logout">
${csrfField(viewer.csrf)}
<span class="who">${viewer.email} <span class="role">${viewer.role}</span></span>
<button type="submit" class="secondary small">Sign out</button>
</form>`
    : ''
}
</div>
${viewer ? nav(active) : ''}
</header>
<main id="main" class="content" tabindex="-1">
${flash ? html`<p class="flash flash-${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.text}</p>` : ''}
${body}
</main>
</body>
</html>`.value;
}

/** The hidden CSRF field of every form (checked by `formIsOurs`, src/dashboard/csrf.ts). */
export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

export const statusBadge = (status: string) => html`<span class="badge badge-${status}">${status}</span>`;

export function dateTime(value: Date | null | undefined): Html {
  if (!value) return html`<span class="muted">—</span>`;
  const iso = value.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** Previous/next links for a list; `href(n)` builds the URL of page n. */
export function pagination(page: number, perPage: number, total: number, href: (n: number) => string): Html {
  const last = Math.max(1, Math.ceil(total / perPage));
  if (last <= 1) return html`<p class="muted list-count">${total} in total</p>`;
  return html`<nav class="pager" aria-label="Pagination">
${page > 1 ? html`<a href="${href(Math.min(page - 1, last))}" rel="prev">← Previous</a>` : html`<span class="muted" aria-hidden="true">← Previous</span>`}
<span>Page ${page} of ${last} (${total} in total)</span>
${page < last ? html`<a href="${href(page + 1)}" rel="next">Next →</a>` : html`<span class="muted" aria-hidden="true">Next →</span>`}
</nav>`;
}

/**
 * A one-time secret: a read-only field, a copy button (script-enabled browsers) and the warning, which
 * says how Slipway keeps it (`stored`) and ends with `ifLost` (what to do when the secret is lost).
 */
export function secretReveal(id: string, label: string, secret: string, ifLost = 'if it is lost, rotate it.', stored = 'Slipway stores only a hash of it'): Html {
  return html`<div class="secret-box">
<p class="warning" id="${id}-warning"><strong>Copy it now: you won't see it again.</strong> ${stored}; ${ifLost}</p>
<label for="${id}">${label}</label>
<div class="copy-row">
<input id="${id}" class="secret" type="text" readonly value="${secret}" aria-describedby="${id}-warning" spellcheck="false" autocomplete="off">
<button type="button" class="copy" data-copy="${id}" hidden>Copy</button>
</div>
<p class="copy-status" data-copy-status="${id}" role="status" aria-live="polite"></p>
</div>`;
}

/** The confirmation step before something that cannot be undone. */
export interface ConfirmOptions {
  crumb?: string;
  title: string;
  message: Html;
  action: string;
  button: string;
  cancelHref: string;
  csrf: string;
  /** Hidden fields the form posts: what was confirmed (e.g. the deployment a rollback goes back to). */
  hidden?: Record<string, string>;
  /** The button's look: `danger` (default) for what cannot be undone, `primary` otherwise. */
  kind?: 'danger' | 'primary';
}

export function confirmBody(o: ConfirmOptions): Html {
  return html`<div class="confirm">
${o.crumb ? html`<p class="crumb">${o.crumb}</p>` : ''}
<h1>${o.title}</h1>
<div class="panel">
${o.message}
<form method="post" action="${o.action}" class="form-actions">
${csrfField(o.csrf)}
${Object.entries(o.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit" class="${o.kind ?? 'danger'}">${o.button}</button>
<a href="${o.cancelHref}">Cancel</a>
</form>
</div>
</div>`;
}
