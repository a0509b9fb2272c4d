import { html, type Html } from '../../lib/html.ts';
import { TOKEN_EXCHANGE_GRANT } from '../../domain/federation.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import type { TrustPolicyDoc } from '../../services/trustPolicies.ts';
import { choiceGroup, formProblem, newOnce, selectField, textArea, textField, type FormState } from '../forms.ts';
import { csrfField, dateTime } from '../layout.ts';
import { projectSettingsView, type ProjectOption, type ProjectSettingsData } from './projectSettings.ts';

export const TRUSTED_CI_PATH = '/dashboard/settings/trusted-ci';

const SCOPE_OPTIONS = [
  { value: 'read', label: 'read: view the project, its deployments and configuration' },
  { value: 'write', label: 'write: also deploy and report deployments' },
];

export interface TrustedCiView extends ProjectSettingsData<TrustPolicyDoc> {
  /** Where tokens are exchanged and the API is (the snippets name them). */
  publicUrl: string;
  tokenUrl: string;
}

function createPolicyForm(v: TrustedCiView, options: ProjectOption[]): Html {
  const state: FormState = v.form ?? { values: { project_id: v.selected?._id ?? '', scopes: ['read', 'write'], issuer: 'https://token.actions.githubusercontent.com', max_ttl_seconds: '900' }, errors: {} };
  return html`<section class="panel" aria-labelledby="create-policy-title">
<h2 id="create-policy-title">Trust a CI workflow</h2>
${formProblem(v.form, { name: 'Name', project_id: 'Project', issuer: 'Issuer', audience: 'Audience', claims: 'Claims', scopes: 'Scopes', environments: 'Environments', max_ttl_seconds: 'Token lifetime' })}
<form method="post" action="${TRUSTED_CI_PATH}" novalidate>
${csrfField(v.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
<div class="form-grid">
${textField({ form: 'policy', name: 'name', label: 'Name', state, required: true, maxlength: 100, hint: 'e.g. “GitHub Actions: deploy from main”.' })}
${selectField({ form: 'policy', name: 'project_id', label: 'Project', state, options })}
</div>
${textField({ form: 'policy', name: 'issuer', label: 'Issuer', state, required: true, hint: 'GitHub Actions: https://token.actions.githubusercontent.com. GitLab.com: https://gitlab.com (or your GitLab’s address).' })}
${textField({ form: 'policy', name: 'audience', label: 'Audience (optional)', state, hint: `What the token’s aud must hold. Empty: ${v.publicUrl}.` })}
${textArea({ form: 'policy', name: 'claims', label: 'Claims', state, rows: 4, required: true, hint: 'One per line, as name=value; the token must carry every one with exactly that value (* is just a character). GitHub: repository_id=…, ref=refs/heads/main. GitLab: project_id=…, ref=main, ref_type=branch.' })}
${choiceGroup({ form: 'policy', name: 'scopes', label: 'Scopes', state, options: SCOPE_OPTIONS })}
<div class="form-grid">
${textField({ form: 'policy', name: 'environments', label: 'Environments (optional)', state, hint: 'Comma-separated; the token deploys only to these. Empty: all.' })}
${textField({ form: 'policy', name: 'max_ttl_seconds', label: 'Token lifetime (seconds)', state, inputmode: 'numeric', hint: '60–3600.' })}
</div>
<div class="form-actions"><button type="submit">Trust workflow</button></div>
</form>
</section>`;
}

const claimsText = (doc: TrustPolicyDoc) => doc.claims.map((c) => `${c.name}=${c.value}`).join(', ');

function policyTable(items: TrustPolicyDoc[]): Html {
  return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Issuer</th><th scope="col">Claims</th><th scope="col">Scopes</th><th scope="col">Environments</th><th scope="col">Actions</th></tr></thead>
<tbody>
${items.map(
  (doc) => html`<tr>
<td data-label="Name">${doc.name}<br><span class="muted">created ${dateTime(doc.created_at)}</span></td>
<td data-label="Issuer"><code>${doc.issuer}</code></td>
<td data-label="Claims"><code>${claimsText(doc)}</code></td>
<td data-label="Scopes">${doc.scopes.join(', ')}</td>
<td data-label="Environments">${doc.environments ? doc.environments.join(', ') : html`<span class="muted">All</span>`}</td>
<td data-label="Actions"><a href="${TRUSTED_CI_PATH}/${doc.project_id}/${doc._id}/delete" aria-label="Delete ${doc.name}…">Delete…</a></td>
</tr>`,
)}
</tbody></table></div>`;
}

/** The exchange as a shell line: the CI's token in `$var`, the project named (several may trust one workflow). */
const exchangeLine = (v: TrustedCiView, projectId: string, variable: string) =>
  `curl -sS ${v.tokenUrl} -d grant_type=${TOKEN_EXCHANGE_GRANT} -d subject_token_type=urn:ietf:params:oauth:token-type:jwt --data-urlencode "subject_token=$${variable}" -d audience=${projectId} | jq -r .access_token`;

const deployLine = (v: TrustedCiView, projectId: string, environment: string) =>
  `curl -sS -X POST ${v.publicUrl}/v1/projects/${projectId}/deployments -H "Authorization: Bearer $SLIPWAY_TOKEN" -H 'Content-Type: application/json' -d '{"environment":"${environment}","branch":"main"}'`;

/** Copy-paste workflows for GitHub Actions and GitLab CI: the CI's OIDC token exchanged, then a deployment. */
function snippets(v: TrustedCiView, project: ProjectDoc, policy: TrustPolicyDoc | undefined): Html {
  const audience = policy?.audience ?? v.publicUrl;
  const environment = policy?.environments?.[0] ?? 'production';
  const github = `permissions:
  id-token: write
steps:
  - name: Exchange the workflow's token for a Slipway token
    run: |
      ID_TOKEN=$(curl -sS -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=${encodeURIComponent(audience)}" | jq -r .value)
      SLIPWAY_TOKEN=$(${exchangeLine(v, project._id, 'ID_TOKEN')})
      echo "::add-mask::$SLIPWAY_TOKEN"
      echo "SLIPWAY_TOKEN=$SLIPWAY_TOKEN" >> "$GITHUB_ENV"
  - name: Deploy
    run: ${deployLine(v, project._id, environment)}`;
  const gitlab = `deploy:
  id_tokens:
    SLIPWAY_ID_TOKEN:
      aud: ${audience}
  script:
    - SLIPWAY_TOKEN=$(${exchangeLine(v, project._id, 'SLIPWAY_ID_TOKEN')})
    - ${deployLine(v, project._id, environment)}`;
  return html`<section class="panel" aria-labelledby="snippets-title">
<h2 id="snippets-title">Use it in your workflow</h2>
<p class="muted">No secret to store: the CI proves who it is with its own short-lived token, exchanged for a Slipway token of ${project.name} valid for the policy’s lifetime.</p>
<h3>GitHub Actions</h3>
<pre class="snippet"><code>${github}</code></pre>
<h3>GitLab CI</h3>
<pre class="snippet"><code>${gitlab}</code></pre>
</section>`;
}

/**
 * Settings › Trusted CI: a form to trust a CI workflow (a trust policy) above the chosen project's
 * policies (delete), and copy-paste snippets for GitHub Actions and GitLab CI.
 */
export function trustedCiView(v: TrustedCiView): Html {
  return projectSettingsView(v, {
    path: TRUSTED_CI_PATH,
    title: 'Trusted CI',
    lead: html`<p class="muted">Let a CI workflow (GitHub Actions, GitLab CI, any OpenID Connect issuer) act for one project without storing a secret: its own token is exchanged for a short-lived Slipway token.</p>`,
    noProject: 'Trust policies belong to a project.',
    form: (options) => createPolicyForm(v, options),
    listId: 'policies-title',
    listTitle: 'Trusted by',
    showButton: 'Show policies',
    table: policyTable,
    empty: 'This project trusts no CI workflow yet.',
    after: (selected) => snippets(v, selected, v.list.items[0]),
  });
}
