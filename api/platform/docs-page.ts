// The human-readable API reference at /docs, rendered on the server from the OpenAPI document itself:
// no scripts, no CDN, so it works offline and cannot drift from /v1/openapi.json.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const methods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

interface Operation {
  method: string;
  path: string;
  op: Obj;
  pathParams: Json[];
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function anchor(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '');
}

/** A compact, TypeScript-like rendering of a JSON schema; component refs become links. */
export function schemaText(schema: Json | undefined, indent = 0, depth = 0): string {
  if (!isObj(schema)) return 'any';
  const pad = '  '.repeat(indent);
  const ref = str(schema.$ref);
  if (ref) {
    const name = ref.split('/').pop() ?? ref;
    return `<a href="#schema-${anchor(name)}">${escapeHtml(name)}</a>`;
  }
  if (depth > 8) return '…';
  const union =
    (Array.isArray(schema.anyOf) && schema.anyOf) || (Array.isArray(schema.oneOf) && schema.oneOf);
  if (union) return union.map((s) => schemaText(s, indent, depth + 1)).join(' | ');
  if (Array.isArray(schema.allOf))
    return schema.allOf.map((s) => schemaText(s, indent, depth + 1)).join(' & ');
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => escapeHtml(JSON.stringify(v))).join(' | ');
  if (schema.const !== undefined) return escapeHtml(JSON.stringify(schema.const));

  const types = Array.isArray(schema.type) ? schema.type.map(String) : [str(schema.type) ?? ''];
  const rendered = types.map((type) => {
    switch (type) {
      case 'object': {
        const props = isObj(schema.properties) ? schema.properties : {};
        const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
        const lines = Object.entries(props).map(([name, prop]) => {
          const desc = isObj(prop) ? str(prop.description) : undefined;
          const note = desc ? ` <span class="note">// ${escapeHtml(desc)}</span>` : '';
          const optional = required.has(name) ? '' : '?';
          return `${pad}  ${escapeHtml(name)}${optional}: ${schemaText(prop, indent + 1, depth + 1)}${note}`;
        });
        if (isObj(schema.additionalProperties)) {
          lines.push(
            `${pad}  [key: string]: ${schemaText(schema.additionalProperties, indent + 1, depth + 1)}`,
          );
        }
        return lines.length > 0 ? `{\n${lines.join('\n')}\n${pad}}` : 'object';
      }
      case 'array':
        return `${schemaText(schema.items, indent, depth + 1)}[]`;
      case '':
        return 'any';
      default: {
        const format = str(schema.format);
        const limits: string[] = [];
        for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern'] as const) {
          const limit = schema[k];
          if (typeof limit === 'string' || typeof limit === 'number') limits.push(`${k} ${limit}`);
        }
        if (schema.default !== undefined) limits.push(`default ${JSON.stringify(schema.default)}`);
        const extra = [format, ...limits].filter(Boolean).join(', ');
        return escapeHtml(type) + (extra ? ` <span class="note">(${escapeHtml(extra)})</span>` : '');
      }
    }
  });
  return rendered.join(' | ');
}

function collectOperations(doc: Obj): Operation[] {
  const out: Operation[] = [];
  const paths = isObj(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    for (const method of methods) {
      const op = item[method];
      if (isObj(op)) {
        out.push({ method, path, op, pathParams: Array.isArray(item.parameters) ? item.parameters : [] });
      }
    }
  }
  return out;
}

function renderParameters(params: Json[]): string {
  if (params.length === 0) return '';
  const rows = params
    .filter(isObj)
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(str(p.name) ?? '')}</code></td><td>${escapeHtml(str(p.in) ?? '')}</td>` +
        `<td>${p.required === true ? 'yes' : 'no'}</td><td><code>${schemaText(p.schema)}</code></td>` +
        `<td>${escapeHtml(str(p.description) ?? '')}</td></tr>`,
    )
    .join('');
  return (
    '<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Type</th>' +
    `<th>Description</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

function renderContent(content: Json | undefined): string {
  if (!isObj(content)) return '';
  return Object.entries(content)
    .map(([mediaType, media]) => {
      const schema = isObj(media) ? media.schema : undefined;
      return `<div class="media">${escapeHtml(mediaType)}</div><pre>${schemaText(schema)}</pre>`;
    })
    .join('');
}

function renderOperation({ method, path, op, pathParams }: Operation, secured: boolean): string {
  const id = anchor(`${method}-${path}`);
  const summary = str(op.summary) ?? '';
  const description = str(op.description);
  const params = [...pathParams, ...(Array.isArray(op.parameters) ? op.parameters : [])];
  const body = isObj(op.requestBody) ? op.requestBody : undefined;
  const responses = isObj(op.responses) ? op.responses : {};
  const security = Array.isArray(op.security) ? op.security.length > 0 : secured;
  const parts = [
    `<section class="op" id="${id}">`,
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>`,
    summary ? `<p class="summary">${escapeHtml(summary)}</p>` : '',
    description ? `<p>${escapeHtml(description)}</p>` : '',
    security ? '<p class="auth">Requires <code>Authorization: Bearer &lt;token&gt;</code></p>' : '',
    renderParameters(params),
    body
      ? `<h4>Request body${body.required === true ? ' (required)' : ''}</h4>` +
        (str(body.description) ? `<p>${escapeHtml(str(body.description) ?? '')}</p>` : '') +
        renderContent(body.content)
      : '',
    '<h4>Responses</h4><dl>',
    ...Object.entries(responses).map(([status, res]) => {
      const r = isObj(res) ? res : {};
      return (
        `<dt><span class="status s${escapeHtml(status.slice(0, 1))}">${escapeHtml(status)}</span> ` +
        `${escapeHtml(str(r.description) ?? '')}</dt><dd>${renderContent(r.content)}</dd>`
      );
    }),
    '</dl></section>',
  ];
  return parts.join('\n');
}

const style = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;display:flex}
nav{width:300px;height:100vh;overflow:auto;position:sticky;top:0;background:#f5f6f8;padding:1rem;box-sizing:border-box;font-size:13px}
nav a{display:block;color:#1d2330;text-decoration:none;padding:1px 0}nav h2{font-size:13px;text-transform:uppercase;margin:1rem 0 .3rem}
main{flex:1;padding:1.5rem 2rem;max-width:1000px}
.op{border:1px solid #dde1e7;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.method{font:bold 12px monospace;padding:2px 6px;border-radius:3px;color:#fff;background:#555}
.get{background:#2f7d32}.post{background:#1f5fbf}.put,.patch{background:#a86500}.delete{background:#b3261e}
pre{background:#f5f6f8;padding:.5rem;overflow:auto;font-size:13px}.note{color:#6b7280}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #dde1e7;padding:3px 6px;text-align:left}
.status{font:bold 13px monospace}.s2{color:#2f7d32}.s4{color:#a86500}.s5{color:#b3261e}.media{color:#6b7280;font-size:12px}
.summary{font-weight:600}`;

/** Renders the whole reference page: operations grouped by tag (in the document's tag order), then schemas. */
export function renderDocsPage(document: unknown): string {
  const doc = isObj(document) ? document : {};
  const info = isObj(doc.info) ? doc.info : {};
  const title = str(info.title) ?? 'API';
  const version = str(info.version) ?? '';
  const globalSecured = Array.isArray(doc.security) && doc.security.length > 0;

  const groups = new Map<string, Operation[]>();
  const declaredTags = Array.isArray(doc.tags) ? doc.tags.filter(isObj).map((t) => str(t.name) ?? '') : [];
  for (const tag of declaredTags) groups.set(tag, []);
  for (const operation of collectOperations(doc)) {
    const tags = Array.isArray(operation.op.tags) ? operation.op.tags.map(String) : [];
    const tag = tags[0] ?? 'other';
    const list = groups.get(tag) ?? [];
    list.push(operation);
    groups.set(tag, list);
  }
  const sorted = [...groups.entries()].filter(([, ops]) => ops.length > 0);
  if (declaredTags.length === 0) sorted.sort(([a], [b]) => a.localeCompare(b));

  const nav = sorted
    .map(
      ([tag, ops]) =>
        `<h2>${escapeHtml(tag)}</h2>` +
        ops
          .map(
            (o) =>
              `<a href="#${anchor(`${o.method}-${o.path}`)}">${o.method.toUpperCase()} ${escapeHtml(o.path)}</a>`,
          )
          .join(''),
    )
    .join('');
  const sections = sorted
    .map(
      ([tag, ops]) =>
        `<h2 id="tag-${anchor(tag)}">${escapeHtml(tag)}</h2>` +
        ops.map((o) => renderOperation(o, globalSecured)).join('\n'),
    )
    .join('\n');
  const components = isObj(doc.components) && isObj(doc.components.schemas) ? doc.components.schemas : {};
  const schemas = Object.entries(components)
    .map(
      ([name, schema]) =>
        `<section id="schema-${anchor(name)}"><h3>${escapeHtml(name)}</h3><pre>${schemaText(schema)}</pre></section>`,
    )
    .join('\n');
  const servers = Array.isArray(doc.servers)
    ? doc.servers.filter(isObj).map((s) => `<code>${escapeHtml(str(s.url) ?? '')}</code>`)
    : [];

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} ${escapeHtml(version)}</title><style>${style}</style></head>
<body><nav><strong>${escapeHtml(title)}</strong> <span class="note">${escapeHtml(version)}</span>${nav}
<h2>Schemas</h2>${Object.keys(components)
    .map((n) => `<a href="#schema-${anchor(n)}">${escapeHtml(n)}</a>`)
    .join('')}</nav>
<main><h1>${escapeHtml(title)} <span class="note">${escapeHtml(version)}</span></h1>
<p>Machine-readable description: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI ${escapeHtml(str(doc.openapi) ?? '')}).${servers.length > 0 ? ` Server: ${servers.join(', ')}.` : ''}</p>
${sections}
<h2 id="schemas">Schemas</h2>
${schemas}
</main></body></html>`;
}
