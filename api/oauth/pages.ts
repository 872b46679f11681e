// The authorization server's pages: the consent page (server-rendered, no script, one form) and the error page
// shown when a request cannot be sent back to the client (unknown client, unregistered redirect URI, a bad form).
import { destructiveScopes, type AssistantScope } from '../../domain/shared/caller.js';
import { escapeHtml, hiddenInput, renderPage } from '../shared/html-page.js';

/** What each scope lets an assistant do (the spec's scope table). */
export const scopeDescriptions: Record<AssistantScope, string> = {
  'mcp:read': 'Read workspace data: posts, media, accounts, analytics and settings',
  'posts:write': 'Create and edit drafts, replies and visuals, and run research that uses credits',
  'posts:schedule': 'Approve and schedule posts',
  'posts:publish': 'Publish approved posts now and send approved X replies',
  'posts:delete': 'Delete your X posts (cannot be undone for published posts)',
  'brand:write': 'Update the brand kit',
};

function page(title: string, body: string): string {
  return renderPage({ title, body });
}

export function errorPage(title: string, message: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p role="alert">${escapeHtml(message)}</p>
<p>Nothing was shared with the application. You can close this page.</p>`,
  );
}

export interface ConsentPageInput {
  clientName: string;
  clientId: string;
  kind: 'registered' | 'metadata_document';
  redirectHost: string;
  userEmail: string;
  workspaces: ReadonlyArray<{ id: string; name: string; role: string }>;
  /** Requested scopes, `mcp:read` first. */
  scopes: readonly AssistantScope[];
  /** The authorization request's parameters, sent back with the form. */
  request: Record<string, string>;
  csrfToken: string;
  action: string;
}

export function consentPage(input: ConsentPageInput): string {
  const hidden = Object.entries(input.request)
    .map(([name, value]) => hiddenInput(name, value))
    .join('\n');
  const source =
    input.kind === 'metadata_document'
      ? `It identifies itself with a client metadata document published at <code>${escapeHtml(input.clientId)}</code>.`
      : 'It registered itself with this service; its name is what it says about itself.';
  const workspaces =
    input.workspaces.length === 0
      ? `<p role="alert">You are not a member of any workspace, so there is nothing to connect. Ask a workspace owner to invite you, then try again.</p>`
      : `<fieldset>
<legend>Workspace it may act in (choose one)</legend>
${input.workspaces
  .map(
    (w, i) =>
      `<label><input type="radio" name="org_id" value="${escapeHtml(w.id)}" required${input.workspaces.length === 1 && i === 0 ? ' checked' : ''}> ${escapeHtml(w.name)} <span class="hint">(${escapeHtml(w.role)})</span></label>`,
  )
  .join('\n')}
</fieldset>`;
  const scopes = input.scopes
    .map((scope) =>
      scope === 'mcp:read'
        ? `<label><input type="checkbox" checked disabled aria-describedby="always"> <code>mcp:read</code>: ${escapeHtml(scopeDescriptions[scope])} <span class="hint" id="always">(always granted)</span></label>
<input type="hidden" name="granted_scope" value="mcp:read">`
        : // What acts beyond recall is never ticked in advance, even when the client asked for it.
          `<label><input type="checkbox" name="granted_scope" value="${escapeHtml(scope)}"${destructiveScopes.includes(scope) ? '' : ' checked'}> <code>${escapeHtml(scope)}</code>: ${escapeHtml(scopeDescriptions[scope])}</label>`,
    )
    .join('\n');
  return page(
    `Connect ${input.clientName}`,
    `<h1>Connect <q>${escapeHtml(input.clientName)}</q> to your account?</h1>
<p>You are signed in as <strong>${escapeHtml(input.userEmail)}</strong>.</p>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to act for you. ${source}
If you allow it, you will be sent back to <strong>${escapeHtml(input.redirectHost)}</strong>.</p>
<form method="post" action="${escapeHtml(input.action)}">
${hidden}
<input type="hidden" name="csrf_token" value="${escapeHtml(input.csrfToken)}">
${workspaces}
<fieldset>
<legend>What it may do</legend>
${scopes}
</fieldset>
<p class="hint">Its actions follow your role and the workspace's approval rules. You can disconnect it at any time under Connected apps.</p>
${input.workspaces.length > 0 ? '<button type="submit" name="decision" value="allow">Allow</button>\n' : ''}<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button>
</form>`,
  );
}
