import type { ConsoleAuditEvent, MerchantUser } from '@kessai/db';
import { html } from './html';
import { csrfField, layout, type PageContext } from './layout';
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

export interface UsersView {
  users: Pick<MerchantUser, 'id' | 'email' | 'name' | 'role' | 'createdOn'>[];
  /** the signed-in user, whose own role has no form */
  selfId: string;
  roles: readonly MerchantUser['role'][];
  notice?: string;
  error?: string;
}

/** Users and roles (owners only): the merchant's users, a role form on each other user, and a form to add one. */
export function usersPage(ctx: PageContext, view: UsersView): string {
  const { m } = ctx;
  const roleOptions = (current: string) =>
    view.roles.map(
      (role) => html`<option value="${role}" ${role === current ? html`selected` : ''}>${role}</option>`,
    );
  const roleCell = (user: UsersView['users'][number]) =>
    user.id === view.selfId
      ? html`${user.role} ${m.you}`
      : html`<form method="post" action="/settings/users/${user.id}/role" class="inline">
          ${csrfField(ctx)}
          <label class="visually-hidden" for="role-${user.id}">${m.role} ${user.email}</label>
          <select id="role-${user.id}" name="role">
            ${roleOptions(user.role)}
          </select>
          <button type="submit" aria-label="${m.changeRole} ${user.email}">${m.changeRole}</button>
        </form>`;
  // removing a user: another one only (the use case refuses oneself too)
  const removeCell = (user: UsersView['users'][number]) =>
    user.id === view.selfId
      ? ''
      : html`<form method="post" action="/settings/users/${user.id}/remove" class="inline">
          ${csrfField(ctx)}
          <button type="submit" aria-label="${m.removeUser} ${user.email}">${m.removeUser}</button>
        </form>`;
  const table = dataTable(
    {
      id: 'users',
      caption: m.users,
      empty: html``,
      columns: [
        { header: m.email, cell: (user) => user.email },
        { header: m.name, cell: (user) => user.name },
        { header: m.role, cell: roleCell },
        { header: m.created, cell: (user) => user.createdOn.toISOString() },
        { header: m.removeUser, cell: removeCell },
      ],
      data: (user) => ({ 'user-id': user.id, 'user-role': user.role }),
    },
    view.users,
  );
  return layout(
    ctx,
    m.users,
    html`<h1>${m.users}</h1>
      ${view.notice ? html`<p class="notice" role="status" id="notice">${view.notice}</p>` : ''}
      ${view.error ? html`<p class="error" role="alert" id="action-error">${view.error}</p>` : ''} ${table}
      <form method="post" action="/settings/users" class="action" aria-labelledby="add-user-title">
        <h2 id="add-user-title">${m.addUser}</h2>
        ${csrfField(ctx)}
        <p class="hint">${m.addUserHint}</p>
        <label for="new-email">${m.email}</label>
        <input id="new-email" name="email" type="email" required />
        <label for="new-name">${m.name}</label>
        <input id="new-name" name="name" type="text" required />
        <label for="new-role">${m.role}</label>
        <select id="new-role" name="role">
          ${roleOptions('viewer')}
        </select>
        <button type="submit" id="add-user">${m.addUserButton}</button>
      </form>`,
  );
}
