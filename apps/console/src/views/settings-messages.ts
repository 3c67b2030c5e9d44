/**
 * The words of the store settings and of removing a user, in English and Japanese: spread into
 * messages.ts's tables, so that each page takes them with the rest of its language.
 */
const en = {
  stores: 'Stores',
  noStores: 'The merchant has no stores.',
  storeId: 'Store id',
  storeName: 'Store name',
  logo: 'Checkout logo',
  hasLogo: 'Set',
  noLogo: 'None',
  removeLogo: 'Remove the checkout logo',
  uploadLogo: 'Upload a checkout logo',
  logoFile: 'A PNG, JPEG or WebP image of at most 256 KiB',
  logoSaved: 'The checkout logo was saved.',
  logoRefused: 'The checkout logo was not saved',
  checkoutColors: 'Checkout colours',
  checkoutColorsHint:
    'Each #rgb or #rrggbb; blank follows the merchant’s setting (shown as the placeholder). Text must keep 4.5:1 on its background.',
  configurationChange: 'Configuration change (JSON)',
  configurationChangeHint:
    'The keys to change, as PATCH /stores/{id} takes its configuration: a value replaces the store’s, null returns the key to the merchant’s setting. Fees are the operator’s.',
  storeLayer: 'The store’s own settings',
  effectiveConfiguration: 'What the store is held to (defaults, merchant, store)',
  saveStore: 'Save the store',
  storeSaved: 'The store was saved.',
  storeRefused: 'The store was not saved',
  removeUser: 'Remove',
  userRemoved: 'The user was removed; their sessions ended.',
};

const ja: typeof en = {
  stores: '店舗',
  noStores: '店舗がありません。',
  storeId: '店舗ID',
  storeName: '店舗名',
  logo: 'チェックアウトのロゴ',
  hasLogo: '設定済み',
  noLogo: 'なし',
  removeLogo: 'チェックアウトのロゴを削除する',
  uploadLogo: 'チェックアウトのロゴをアップロード',
  logoFile: '256 KiB 以下の PNG、JPEG または WebP 画像',
  logoSaved: 'チェックアウトのロゴを保存しました。',
  logoRefused: 'チェックアウトのロゴを保存できませんでした',
  checkoutColors: 'チェックアウトの色',
  checkoutColorsHint:
    'それぞれ #rgb または #rrggbb。空欄は加盟店の設定に従います (プレースホルダーに表示)。文字は背景に対して 4.5:1 以上のコントラストが必要です。',
  configurationChange: '設定の変更 (JSON)',
  configurationChangeHint:
    'PATCH /stores/{id} の configuration と同じ形で、変更するキーだけを書きます。値は店舗の設定を置き換え、null は加盟店の設定に戻します。手数料は運営者が設定します。',
  storeLayer: '店舗独自の設定',
  effectiveConfiguration: '店舗に適用される設定 (既定値・加盟店・店舗)',
  saveStore: '店舗を保存',
  storeSaved: '店舗を保存しました。',
  storeRefused: '店舗を保存できませんでした',
  removeUser: '削除',
  userRemoved: 'ユーザーを削除し、そのセッションを終了しました。',
};

export const SETTINGS_MESSAGES = { en, ja };
