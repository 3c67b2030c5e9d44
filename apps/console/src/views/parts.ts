import { html, raw, type Html, type Interpolated } from './html';
import type { Messages } from './messages';

/** One column of a list: its header and what each row shows in it. */
export interface Column<T> {
  header: string;
  cell: (row: T) => Interpolated;
}

export interface TableSpec<T> {
  /** the table's id (what the pages' scripts and the tests find it by) */
  id: string;
  /** the caption, read by screen readers only */
  caption: string;
  /** what stands in the table's place when there are no rows */
  empty: Html;
  columns: readonly Column<T>[];
  /** each row's data-* attributes (names without the data- prefix) */
  data: (row: T) => Record<string, string>;
}

/** A list as a table with a header row, or the spec's empty text when there is nothing to list. */
export function dataTable<T>(spec: TableSpec<T>, rows: readonly T[]): Html {
  if (rows.length === 0) return spec.empty;
  const attributes = (row: T) =>
    Object.entries(spec.data(row)).map(([name, value]) => html` data-${raw(name)}="${value}"`);
  return html`<table id="${spec.id}">
    <caption class="visually-hidden">
      ${spec.caption}
    </caption>
    <thead>
      <tr>
        ${spec.columns.map((column) => html`<th scope="col">${column.header}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr${attributes(row)}>
            ${spec.columns.map((column) => html`<td>${column.cell(row)}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** One labelled line of a detail table (a dash where there is no value). */
export function detailRow(label: string, value: Html | string | null): Html {
  return html`<tr>
    <th scope="row">${label}</th>
    <td>${value ?? '—'}</td>
  </tr>`;
}

/** A resource's metadata as a definition list, or null when it has none. */
export function metadataList(metadata: unknown): Html | null {
  const entries = Object.entries((metadata ?? {}) as Record<string, unknown>);
  if (entries.length === 0) return null;
  return html`<dl class="metadata">
    ${entries.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd>`,
    )}
  </dl>`;
}

/** A labelled select of a filter form, its first option meaning "any". */
export function selectField(
  id: string,
  label: string,
  options: readonly { value: string; text: string }[],
  value: string | undefined,
  any: string,
): Html {
  return html`<label for="${id}">${label}</label>
    <select id="${id}" name="${id}">
      <option value="">${any}</option>
      ${options.map((option) => html`<option value="${option.value}" ${option.value === value ? html` selected` : ''}>${option.text}</option>`)}
    </select>`;
}

/** Options whose value is also their text (statuses, payment types). */
export function plainOptions(values: readonly string[]): { value: string; text: string }[] {
  return values.map((value) => ({ value, text: value }));
}

/** The GET form of a list's filters: its fields, then apply and a link that clears them. */
export function filterForm(m: Messages, action: string, fields: readonly Html[]): Html {
  return html`<form method="get" action="${action}" class="filters" aria-labelledby="filters-title">
    <h2 id="filters-title">${m.filters}</h2>
    <div class="fields">${fields.map((field) => html`<div>${field}</div>`)}</div>
    <button type="submit" id="apply-filters">${m.apply}</button> <a href="${action}">${m.clear}</a>
  </form>`;
}

/** The previous and next links of a paged list (each only where there is such a page). */
export function pageLinks(
  m: Messages,
  path: string,
  previousQuery: string | null,
  nextQuery: string | null,
): Html {
  return html`<nav aria-label="${m.pagination}" class="pages">
    ${previousQuery !== null ? html`<a id="previous-page" rel="prev" href="${path}?${previousQuery}">${m.previous}</a>` : ''}
    ${nextQuery !== null ? html`<a id="next-page" rel="next" href="${path}?${nextQuery}">${m.next}</a>` : ''}
  </nav>`;
}
