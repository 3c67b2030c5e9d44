import type { ConsoleAuditEvent } from '@kessai/db';
import { html } from './html';
import { layout, type PageContext } from './layout';
import { dataTable } from './parts';

export interface AuditView {
  rows: ConsoleAuditEvent[];
  /** the merchant's users' emails by id */
  emails: Map<string, string>;
}

/** The audit log: who did what, to what, when and from where (newest first). */
export function auditPage(ctx: PageContext, view: AuditView): string {
  const { m } = ctx;
  const table = dataTable(
    {
      id: 'audit',
      caption: m.auditLog,
      empty: html`<p id="no-audit">${m.noAudit}</p>`,
      columns: [
        { header: m.when, cell: (row) => row.createdOn.toISOString() },
        { header: m.who, cell: (row) => view.emails.get(row.userId) ?? row.userId },
        { header: m.action, cell: (row) => row.action },
        { header: m.target, cell: (row) => `${row.targetType} ${row.targetId}` },
        { header: m.mode, cell: (row) => row.mode },
        { header: m.detail, cell: (row) => html`<code>${JSON.stringify(row.detail)}</code>` },
        { header: m.fromWhere, cell: (row) => `${row.ip} ${row.userAgent ?? ''}` },
      ],
      data: (row) => ({ 'audit-action': row.action, 'target-id': row.targetId }),
    },
    view.rows,
  );
  return layout(
    ctx,
    m.auditLog,
    html`<h1>${m.auditLog}</h1>
      ${table}`,
  );
}
