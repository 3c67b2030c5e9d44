import type { TestClockWithStatus } from '@kessai/db';
import { html, type Html } from './html';
import { csrfField, layout, type PageContext } from './layout';
import type { Messages } from './messages';
import { dataTable, detailRow, type TableSpec } from './parts';

export interface TestClockListView {
  /** null in live mode: live mode has no test clocks */
  rows: TestClockWithStatus[] | null;
  /** whether the user's role may create and advance clocks */
  manage: boolean;
  /** the form's values as sent, when it was refused */
  form?: { frozen_time?: string; name?: string };
  error?: string;
  /** a clock was just deleted */
  deleted?: boolean;
}

function clocksTable(m: Messages): TableSpec<TestClockWithStatus> {
  return {
    id: 'test-clocks',
    caption: m.testClocks,
    empty: html`<p id="no-test-clocks">${m.noTestClocks}</p>`,
    columns: [
      { header: m.name, cell: (c) => c.name },
      { header: m.frozenTime, cell: (c) => c.frozenTime.toISOString() },
      { header: m.clockStatus, cell: (c) => c.status },
      { header: m.created, cell: (c) => c.createdOn.toISOString() },
      { header: m.id, cell: (c) => html`<a href="/subscriptions/test-clocks/${c.id}">${c.id}</a>` },
    ],
    data: (c) => ({ 'test-clock-id': c.id }),
  };
}

function instantField(id: string, label: string, hint: string, value: string | undefined): Html {
  return html`<label for="${id}">${label}</label>
    <input
      id="${id}"
      name="frozen_time"
      type="text"
      required
      value="${value ?? ''}"
      aria-describedby="${id}-hint"
    />
    <p class="hint" id="${id}-hint">${hint}</p>`;
}

export function testClockListPage(ctx: PageContext, view: TestClockListView): string {
  const { m } = ctx;
  if (view.rows === null)
    return layout(
      ctx,
      m.testClocks,
      html`<h1>${m.testClocks}</h1>
        <p id="test-clocks-live">${m.testClocksLiveOnly}</p>
        <p><a href="/subscriptions">${m.backToSubscriptions}</a></p>`,
    );
  const create = view.manage
    ? html`<form
        method="post"
        action="/subscriptions/test-clocks"
        class="action"
        aria-labelledby="new-clock-title"
      >
        <h2 id="new-clock-title">${m.newTestClock}</h2>
        ${csrfField(ctx)}
        ${instantField('frozen-time', m.frozenTime, m.frozenTimeHint, view.form?.frozen_time)}
        <label for="clock-name">${m.clockName}</label>
        <input id="clock-name" name="name" type="text" maxlength="100" value="${view.form?.name ?? ''}" />
        <button type="submit" id="create-test-clock">${m.createTestClock}</button>
      </form>`
    : '';
  return layout(
    ctx,
    m.testClocks,
    html`<h1>${m.testClocks}</h1>
      <p class="hint">${m.testClocksHint}</p>
      ${view.deleted ? html`<p class="notice" role="status" id="notice">${m.testClockDeleted}</p>` : ''}
      ${view.error ? html`<p class="error" role="alert" id="action-error">${view.error}</p>` : ''}
      ${dataTable(clocksTable(m), view.rows)} ${create}
      <p><a href="/subscriptions">${m.backToSubscriptions}</a></p>`,
  );
}

export interface TestClockView {
  clock: TestClockWithStatus;
  manage: boolean;
  done?: 'created' | 'advanced';
  /** the advance form's value as sent, when it was refused */
  advanceTo?: string;
  error?: string;
}

export function testClockPage(ctx: PageContext, view: TestClockView): string {
  const { m } = ctx;
  const c = view.clock;
  const notice =
    view.done === 'created' ? m.testClockCreated : view.done === 'advanced' ? m.testClockAdvanced : null;
  const advance = view.manage
    ? html`<form
        method="post"
        action="/subscriptions/test-clocks/${c.id}/advance"
        class="action"
        aria-labelledby="advance-title"
      >
        <h2 id="advance-title">${m.advance}</h2>
        ${csrfField(ctx)} ${instantField('advance-to', m.advanceTo, m.frozenTimeHint, view.advanceTo)}
        <button type="submit" id="advance-button">${m.advance}</button>
      </form>`
    : '';
  const remove = view.manage
    ? html`<form
        method="post"
        action="/subscriptions/test-clocks/${c.id}/delete"
        class="action"
        aria-labelledby="delete-clock-title"
      >
        <h2 id="delete-clock-title">${m.deleteClock}</h2>
        <p class="hint">${m.deleteClockHint}</p>
        ${csrfField(ctx)}
        <button type="submit" id="delete-clock-button">${m.deleteClock}</button>
      </form>`
    : '';
  return layout(
    ctx,
    `${m.testClock} ${c.id}`,
    html`<h1>${m.testClock}</h1>
      ${notice ? html`<p class="notice" role="status" id="notice">${notice}</p>` : ''}
      ${view.error ? html`<p class="error" role="alert" id="action-error">${view.error}</p>` : ''}
      <table id="test-clock">
        <caption>
          ${m.testClock}
        </caption>
        <tbody>
          ${detailRow(m.id, c.id)} ${detailRow(m.name, c.name)}
          ${detailRow(m.frozenTime, html`<span id="frozen-time-value">${c.frozenTime.toISOString()}</span>`)}
          ${detailRow(m.clockStatus, html`<span id="clock-status">${c.status}</span>`)}
          ${detailRow(m.created, c.createdOn.toISOString())}
        </tbody>
      </table>
      ${advance} ${remove}
      <p><a href="/subscriptions/test-clocks">${m.backToTestClocks}</a></p>`,
  );
}
