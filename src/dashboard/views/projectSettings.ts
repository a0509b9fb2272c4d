import { html, type Html } from '../../lib/html.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { selectField, type FormState } from '../forms.ts';
import { pagination } from '../layout.ts';

export type ProjectOption = { value: string; label: string };

/** A settings page of things that belong to one project: the account's projects and the chosen one's page of them. */
export interface ProjectScoped<T> {
  /** The account's projects for the selectors (newest 100). */
  projects: ProjectDoc[];
  /** The project whose things are listed. */
  selected: ProjectDoc | undefined;
  list: { items: T[]; total: number; page: number };
}

/** A project-scoped settings page's data with its create form: as sent, after a refusal. */
export interface ProjectSettingsData<T> extends ProjectScoped<T> {
  csrf: string;
  form?: FormState | undefined;
}

/** What tells one project-scoped settings page from another. */
export interface ProjectSettings<T> {
  path: string;
  title: string;
  lead: Html;
  /** With no project yet: what belongs to a project, before the pointer to create one. */
  noProject: string;
  /** The create form, given the projects as options. */
  form: (options: ProjectOption[]) => Html;
  /** The list's heading id and its title before the project's name. */
  listId: string;
  listTitle: string;
  showButton: string;
  table: (items: T[]) => Html;
  empty: string;
  /** Below the list, for the chosen project. */
  after?: (selected: ProjectDoc) => Html;
}

/**
 * A settings page of things that belong to a project: the create form above the chosen project's
 * list (a project chooser, an empty state, pagination); with no project yet, a pointer to create one.
 */
export function projectSettingsView<T>(v: ProjectScoped<T>, s: ProjectSettings<T>): Html {
  const options = v.projects.map((p) => ({ value: p._id, label: p.name }));
  const { selected } = v;
  return html`<p class="crumb">Settings</p>
<h1>${s.title}</h1>
${s.lead}
${
  v.projects.length === 0
    ? html`<div class="panel"><p>${s.noProject} <a href="/dashboard/projects">Create a project</a> first.</p></div>`
    : html`${s.form(options)}
<section class="panel" aria-labelledby="${s.listId}">
<h2 id="${s.listId}">${s.listTitle} ${selected?.name ?? ''}</h2>
<form method="get" action="${s.path}" class="filters" aria-label="Choose a project">
${selectField({ form: 'show', name: 'project', label: 'Project', value: selected?._id ?? '', options })}
<div class="form-actions"><button type="submit" class="secondary">${s.showButton}</button></div>
</form>
${v.list.items.length ? s.table(v.list.items) : html`<p class="empty">${s.empty}</p>`}
${selected ? pagination(v.list.page, 20, v.list.total, (n) => `${s.path}?project=${encodeURIComponent(selected._id)}&page=${n}`) : ''}
</section>${selected && s.after ? html`
${s.after(selected)}` : ''}`
}`;
}
