import type { ConsoleAuditEvent } from '@kessai/db';
import { html } from './html';
import { layout, type PageContext } from './layout';

export interface AuditView {
  rows: ConsoleAuditEvent[];
  /** the merchant's users' emails by id */
  emails: Map<string, string>;
}

/** The audit log: who did what, to what, when and from where (newest first). */
export function auditPage(ctx: PageContext, view: AuditView): string {
  const { m } = ctx;
  const table =
    view.rows.length === 0
      ? html`<p id="no-audit">${m.noAudit}</p>`
      : html`<table id="audit">
          <caption class="visually-hidden">
            ${m.auditLog}
          </caption>
          <thead>
            <tr>
              <th scope="col">${m.when}</th>
              <th scope="col">${m.who}</th>
              <th scope="col">${m.action}</th>
              <th scope="col">${m.target}</th>
              <th scope="col">${m.mode}</th>
              <th scope="col">${m.detail}</th>
              <th scope="col">${m.fromWhere}</th>
            </tr>
          </thead>
          <tbody>
            ${view.rows.map(
              (row) =>
                html`<tr data-audit-action="${row.action}" data-target-id="${row.targetId}">
                  <td>${row.createdOn.toISOString()}</td>
                  <td>${view.emails.get(row.userId) ?? row.userId}</td>
                  <td>${row.action}</td>
                  <td>${row.targetType} ${row.targetId}</td>
                  <td>${row.mode}</td>
                  <td><code>${JSON.stringify(row.detail)}</code></td>
                  <td>${row.ip} ${row.userAgent ?? ''}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return layout(
    ctx,
    m.auditLog,
    html`<h1>${m.auditLog}</h1>
      ${table}`,
  );
}
