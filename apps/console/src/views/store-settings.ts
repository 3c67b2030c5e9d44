import type { StoreWithMerchant } from '@kessai/db';
import {
  CHECKOUT_COLOR_KEYS,
  effectiveConfiguration,
  type CheckoutColorKey,
} from '@kessai/store-configuration';
import { html } from './html';
import { csrfField, layout, type PageContext } from './layout';
import { dataTable, detailRow, pageLinks } from './parts';

export interface StoreListView {
  stores: StoreWithMerchant[];
  nextQuery: string | null;
  previousQuery: string | null;
}

/** The merchant's stores (every role reads), each linking its settings page. */
export function storeListPage(ctx: PageContext, view: StoreListView): string {
  const { m } = ctx;
  const table = dataTable(
    {
      id: 'stores',
      caption: m.stores,
      empty: html`<p id="no-stores">${m.noStores}</p>`,
      columns: [
        {
          header: m.storeName,
          cell: (store) => html`<a href="/settings/stores/${store.id}">${store.name}</a>`,
        },
        { header: m.storeId, cell: (store) => store.id },
        { header: m.created, cell: (store) => store.createdOn.toISOString() },
      ],
      data: (store) => ({ 'store-id': store.id }),
    },
    view.stores,
  );
  return layout(
    ctx,
    m.stores,
    html`<h1>${m.stores}</h1>
      ${table}${pageLinks(m, '/settings/stores', view.previousQuery, view.nextQuery)}`,
  );
}

/** What the form shows: the stored values, or what was typed into a refused form. */
export interface StoreFormValues {
  name: string;
  colors: Partial<Record<CheckoutColorKey, string>>;
  configuration: string;
}

export interface StoreView {
  store: StoreWithMerchant;
  /** whether the user may change it (owner, admin); others read */
  canEdit: boolean;
  /** a refused form's values; the store's own otherwise */
  typed?: StoreFormValues;
  notice?: string;
  error?: string;
}

/** The store's own checkout colours (its layer), as the form shows them. */
export function storeColors(store: StoreWithMerchant): Partial<Record<CheckoutColorKey, string>> {
  const layer = (store.configuration ?? {}) as {
    checkout_colors?: Partial<Record<CheckoutColorKey, string>>;
  };
  return { ...(layer.checkout_colors ?? {}) };
}

/**
 * A store: its name, logo, its own settings and the effective ones; for owners and admins the form
 * that changes the name, the checkout colours and any configuration key a merchant may set (the
 * API's PATCH /stores/{id}) and removes the logo, and the form that uploads a new logo.
 */
export function storePage(ctx: PageContext, view: StoreView): string {
  const { m } = ctx;
  const { store } = view;
  const effective = effectiveConfiguration(store.merchant.configuration, store.configuration);
  const values: StoreFormValues = view.typed ?? {
    name: store.name,
    colors: storeColors(store),
    configuration: '',
  };
  const colorInput = (key: CheckoutColorKey) =>
    html`<div>
      <label for="color_${key}">${key}</label>
      <input
        id="color_${key}"
        name="color_${key}"
        type="text"
        maxlength="7"
        value="${values.colors[key] ?? ''}"
        placeholder="${effective.checkout_colors[key]}"
      />
    </div>`;
  const form = view.canEdit
    ? html`<form
        method="post"
        action="/settings/stores/${store.id}"
        class="action"
        aria-labelledby="store-form-title"
      >
        <h2 id="store-form-title">${m.saveStore}</h2>
        ${csrfField(ctx)}
        <label for="store-name">${m.storeName}</label>
        <input id="store-name" name="name" type="text" required maxlength="100" value="${values.name}" />
        <fieldset>
          <legend>${m.checkoutColors}</legend>
          <p class="hint">${m.checkoutColorsHint}</p>
          <div class="colors">${CHECKOUT_COLOR_KEYS.map(colorInput)}</div>
        </fieldset>
        <label for="store-configuration">${m.configurationChange}</label>
        <p class="hint" id="store-configuration-hint">${m.configurationChangeHint}</p>
        <textarea
          id="store-configuration"
          name="configuration"
          rows="6"
          aria-describedby="store-configuration-hint"
        >
${values.configuration}</textarea>
        ${
          store.logo
            ? html`<p>
                <input id="remove-logo" name="remove_logo" type="checkbox" value="on" />
                <label for="remove-logo">${m.removeLogo}</label>
              </p>`
            : ''
        }
        <button type="submit" id="save-store">${m.saveStore}</button>
      </form>`
    : '';
  // its own form: a file goes as multipart/form-data, which only this route takes
  const logoForm = view.canEdit
    ? html`<form
        method="post"
        action="/settings/stores/${store.id}/logo"
        enctype="multipart/form-data"
        class="action"
        aria-labelledby="logo-form-title"
      >
        <h2 id="logo-form-title">${m.uploadLogo}</h2>
        ${csrfField(ctx)}
        <label for="logo-file">${m.logoFile}</label>
        <input id="logo-file" name="logo" type="file" required accept="image/png,image/jpeg,image/webp" />
        <button type="submit" id="upload-logo">${m.uploadLogo}</button>
      </form>`
    : '';
  return layout(
    ctx,
    `${m.store} ${store.name}`,
    html`<h1>${m.store} <span id="store-name-shown">${store.name}</span></h1>
      ${view.notice ? html`<p class="notice" role="status" id="notice">${view.notice}</p>` : ''}
      ${view.error ? html`<p class="error" role="alert" id="action-error">${view.error}</p>` : ''}
      <table id="store">
        <caption class="visually-hidden">
          ${m.store}
        </caption>
        <tbody>
          ${detailRow(m.storeId, store.id)} ${detailRow(m.storeName, store.name)}
          ${detailRow(m.created, store.createdOn.toISOString())}
          ${detailRow(m.logo, store.logo ? m.hasLogo : m.noLogo)}
        </tbody>
      </table>
      ${form} ${logoForm}
      <h2>${m.storeLayer}</h2>
      <pre id="store-layer">${JSON.stringify(store.configuration ?? {}, null, 2)}</pre>
      <h2>${m.effectiveConfiguration}</h2>
      <pre id="store-effective">${JSON.stringify(effective, null, 2)}</pre>
      <p><a href="/settings/stores">${m.stores}</a></p>`,
  );
}
