/**
 * The hosted checkout's HTML (docs/hosted-checkout.md): the link page, the widget's and inline
 * form's frame, and the refusal page. Server-rendered, no inline script and no inline style but the
 * store's colours (a <style> block the CSP allows by its hash, page-theme.ts): the browser code is
 * /checkout/assets/checkout.js, its settings a JSON data block (not executed, so the CSP allows it),
 * and the inputs carry no `name` so that nothing (no card data) is ever submitted by the browser's
 * own form submission, into a URL or anywhere else.
 */

export type Lang = 'ja' | 'en';

const MESSAGES = {
  en: {
    pageTitle: 'Payment',
    refusedTitle: 'This payment link cannot be used',
    linkNotFound: 'This payment link is not valid. Check that you opened the whole link you were sent.',
    linkTampered: 'This payment link was altered. Open the link exactly as you received it.',
    linkDisabled: 'This payment link has been disabled by the shop.',
    linkExpired: 'This payment link has expired. Ask the shop for a new one.',
    frameRefused: 'This payment form cannot be shown here.',
    amount: 'Amount',
    store: 'Shop',
    method: 'Payment method',
    card: 'Card',
    cardholder: 'Name on card',
    cardNumber: 'Card number',
    expiry: 'Expiry date (MM/YY)',
    cvv: 'Security code (CVV)',
    email: 'Email',
    pay: 'Pay',
    save: 'Save card',
    onlineHint: 'You will be taken to the operator’s page to pay, then back here.',
    bankTransfer: 'Bank transfer',
    konbini: 'Convenience store (konbini)',
    konbiniStore: 'Convenience store',
    customerName: 'Full name',
    phone: 'Phone number',
    deferredHint: 'You will get the payment instructions on this page, and pay before their deadline.',
    deferredMailHint:
      'You will get the payment instructions on this page and by email, and pay before their deadline.',
    preparing: 'Preparing your payment instructions…',
    instructionsMailed: 'The same instructions have been sent to your email.',
    language: 'Language',
    testMode: 'Test mode: no real payment is made.',
    secure: 'Card details go straight to Kessai over an encrypted connection.',
    errors: {
      required: 'Enter this field.',
      cardNumber: 'Enter a valid card number.',
      expiry: 'Enter a valid expiry date (MM/YY).',
      expired: 'This card has expired.',
      cvv: 'Enter the {n}-digit security code.',
      email: 'Enter a valid email address.',
      declined: 'The payment was declined: {reason}. Check the details or use another card.',
      failed: 'The payment could not be completed. Try again.',
      network: 'Kessai could not be reached. Check your connection and try again.',
      alreadyPaid: 'This link has already been paid, or a payment on it is in progress.',
      phone: 'Enter a valid phone number.',
      unavailable: 'This payment method is not available for this shop. Choose another one.',
      form: 'Check the fields marked in red.',
    },
    processing: 'Processing your payment…',
    redirecting: 'Taking you to your card issuer or payment operator…',
    success: 'Payment complete. Thank you!',
    subscribed: 'Your subscription has started. Thank you!',
    tokenSaved: 'Your card has been saved.',
    backToShop: 'Return to the shop',
  },
  ja: {
    pageTitle: 'お支払い',
    refusedTitle: 'この支払いリンクは使用できません',
    linkNotFound: 'この支払いリンクは無効です。届いたリンクを最後まで開いているかご確認ください。',
    linkTampered: 'この支払いリンクは改変されています。届いたリンクをそのまま開いてください。',
    linkDisabled: 'この支払いリンクはショップにより無効にされています。',
    linkExpired: 'この支払いリンクは有効期限が切れています。ショップに新しいリンクをご依頼ください。',
    frameRefused: 'この支払いフォームはここには表示できません。',
    amount: '金額',
    store: 'ショップ',
    method: 'お支払い方法',
    card: 'クレジットカード',
    cardholder: 'カード名義',
    cardNumber: 'カード番号',
    expiry: '有効期限（MM/YY）',
    cvv: 'セキュリティコード（CVV）',
    email: 'メールアドレス',
    pay: '支払う',
    save: 'カードを登録',
    onlineHint: '決済事業者のページでお支払いの後、このページに戻ります。',
    bankTransfer: '銀行振込',
    konbini: 'コンビニ払い',
    konbiniStore: 'お支払いするコンビニ',
    customerName: 'お名前',
    phone: '電話番号',
    deferredHint: 'お支払い方法のご案内をこのページに表示します。期限までにお支払いください。',
    deferredMailHint:
      'お支払い方法のご案内をこのページとメールでお知らせします。期限までにお支払いください。',
    preparing: 'お支払い方法のご案内を準備しています…',
    instructionsMailed: '同じご案内をメールでもお送りしました。',
    language: '言語',
    testMode: 'テストモード：実際の支払いは行われません。',
    secure: 'カード情報は暗号化された通信で直接 Kessai に送信されます。',
    errors: {
      required: '入力してください。',
      cardNumber: '正しいカード番号を入力してください。',
      expiry: '正しい有効期限（MM/YY）を入力してください。',
      expired: 'このカードは有効期限が切れています。',
      cvv: '{n}桁のセキュリティコードを入力してください。',
      email: '正しいメールアドレスを入力してください。',
      declined:
        'お支払いが承認されませんでした（{reason}）。入力内容をご確認いただくか、別のカードをご利用ください。',
      failed: 'お支払いを完了できませんでした。もう一度お試しください。',
      network: 'Kessai に接続できませんでした。通信環境をご確認のうえ、もう一度お試しください。',
      alreadyPaid: 'このリンクはお支払い済みか、お支払いの処理中です。',
      phone: '正しい電話番号を入力してください。',
      unavailable: 'このお支払い方法はこのショップではご利用いただけません。別の方法をお選びください。',
      form: '赤で示された項目をご確認ください。',
    },
    processing: 'お支払いを処理しています…',
    redirecting: 'カード発行会社または決済事業者のページへ移動します…',
    success: 'お支払いが完了しました。ありがとうございました。',
    subscribed: '定期課金を開始しました。ありがとうございました。',
    tokenSaved: 'カードを登録しました。',
    backToShop: 'ショップに戻る',
  },
} as const;

export type Messages = (typeof MESSAGES)[Lang];
export const messagesFor = (lang: Lang): Messages => MESSAGES[lang];

/** The page's language: `?lang=`, else the form's locale, else the browser's first preference. */
export function pickLang(
  query: unknown,
  formLocale: string | null,
  acceptLanguage: string | undefined,
): Lang {
  for (const candidate of [query, formLocale, acceptLanguage]) {
    if (typeof candidate !== 'string') continue;
    const lower = candidate.trim().toLowerCase();
    if (lower.startsWith('ja')) return 'ja';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** JSON for a `<script type="application/json">` block: nothing in it can close the element. */
function jsonBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** An amount in minor units, as the consumer reads it in the page's language (¥1,500, $12.00). */
export function formatAmount(minor: bigint, currency: string, lang: Lang): string {
  const locale = lang === 'ja' ? 'ja-JP' : 'en-US';
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 0;
    return format.format(Number(minor) / 10 ** digits);
  } catch {
    return `${minor.toString()} ${currency}`;
  }
}

/**
 * The Content-Security-Policy of every hosted page: scripts, styles, images and requests to the
 * gateway itself only (and the one theme <style> block, by its hash), no plugins, no <base>, no form
 * submission (the scripts send JSON), and who may frame the page: nobody for the link page, the
 * token's domains for the widget's frame.
 */
export function contentSecurityPolicy(frameAncestors: string[], styleSources: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    ["style-src 'self'", ...styleSources].join(' '),
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
}

/**
 * An app token's domains as CSP sources for frame-ancestors: a host, a host and port, a full origin
 * or a `*.` wildcard, as originAllowed reads them; anything else (which could smuggle a directive)
 * is left out.
 */
export function frameAncestorSources(domains: string[]): string[] {
  const host = String.raw`(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?`;
  const source = new RegExp(`^((https?)://)?${host}$`);
  return domains
    .map((domain) => domain.trim().toLowerCase().replace(/\/+$/, ''))
    .filter((domain) => source.test(domain));
}

/** Headers every hosted page answers with. */
export function pageHeaders(frameAncestors: string[], styleSources: string[] = []): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(frameAncestors, styleSources),
    // the link's secret is in the page's URL: it must not leave in a Referer
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    ...(frameAncestors.length === 0 ? { 'x-frame-options': 'DENY' } : {}),
  };
}

interface Shell {
  lang: Lang;
  title: string;
  body: string;
  /** the theme's CSS (validated colours only), after the stylesheet it overrides */
  themeCss?: string;
}

function shell({ lang, title, body, themeCss }: Shell): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">
${themeCss === undefined ? '' : `<style>${themeCss}</style>\n`}</head>
<body>
${body}
</body>
</html>
`;
}

export function refusalPage(lang: Lang, message: string, framed = false): string {
  const m = messagesFor(lang);
  return shell({
    lang,
    title: m.refusedTitle,
    body: `<main class="checkout${framed ? ' framed' : ''}">
<section class="card refused" aria-labelledby="refused-title">
<h1 id="refused-title">${escapeHtml(m.refusedTitle)}</h1>
<p>${escapeHtml(message)}</p>
</section>
</main>`,
  });
}

export interface PaymentMethod {
  /** `card`, an online (QR operator) brand, `bank_transfer` or `konbini` */
  id: string;
  label: string;
}

/** A konbini the page offers: its API name (ConvenienceStore) and its name in the page's language. */
export interface KonbiniChoice {
  id: string;
  label: string;
}

export interface CheckoutPage {
  lang: Lang;
  /** link: the hosted link page; frame: the widget's or inline form's frame (tokenises only) */
  kind: 'link' | 'frame';
  storeName: string | null;
  /** the store's logo: its URL on the gateway, shown with the store's name as its alt text */
  logo: { src: string; alt: string } | null;
  /** the store's colours (page-theme.ts) */
  themeCss: string;
  title: string | null;
  description: string | null;
  amount: { minor: bigint; currency: string } | null;
  testMode: boolean;
  methods: PaymentMethod[];
  /** the convenience stores offered with `konbini` (none: no konbini fields) */
  konbiniStores?: KonbiniChoice[];
  /** the payment instructions are mailed too (the page says so) */
  mailsInstructions?: boolean;
  requireEmail: boolean;
  showCvv: boolean;
  submitText: string | null;
  /** the other language's URL (same page) */
  otherLangHref: string;
  /** handed to checkout.js (JSON data block) */
  config: Record<string, unknown>;
}

/** Display names of the online brands a page may offer. */
const ONLINE_BRAND_NAMES: Record<string, string> = {
  pay_pay_online: 'PayPay',
  alipay_online: 'Alipay',
  alipay_plus_online: 'Alipay+',
  d_barai_online: 'd払い',
  we_chat_online: 'WeChat Pay',
};
/** The online brands a hosted page offers (those of Japan's consumers), when the store accepts them. */
export const PAGE_ONLINE_BRANDS = Object.keys(ONLINE_BRAND_NAMES);
export const onlineBrandName = (brand: string) => ONLINE_BRAND_NAMES[brand] ?? brand;

function field(id: string, label: string, attributes: string, hint = ''): string {
  return `<div class="field" id="${id}-field">
<label for="${id}">${escapeHtml(label)}</label>
<input id="${id}" ${attributes} aria-describedby="${id}-error${hint ? ` ${id}-hint` : ''}">
${hint ? `<p class="hint" id="${id}-hint">${escapeHtml(hint)}</p>` : ''}<p class="error" id="${id}-error"></p>
</div>`;
}

/**
 * The fields of a bank transfer or konbini payment: for konbini the store, the payer's name and phone
 * number (the konbini network prints them on the slip); a hint that the instructions follow.
 */
function deferredFields(page: CheckoutPage, m: Messages): string {
  const ids = page.methods.map((method) => method.id);
  if (!ids.includes('bank_transfer') && !ids.includes('konbini')) return '';
  const hint = escapeHtml(page.mailsInstructions ? m.deferredMailHint : m.deferredHint);
  const stores = page.konbiniStores ?? [];
  const konbini =
    ids.includes('konbini') && stores.length > 0
      ? `<div id="konbini-fields" hidden>
<div class="field" id="konbini-store-field">
<label for="konbini-store">${escapeHtml(m.konbiniStore)}</label>
<select id="konbini-store" required aria-required="true" aria-describedby="konbini-store-error">
${stores.map((store) => `<option value="${escapeHtml(store.id)}">${escapeHtml(store.label)}</option>`).join('\n')}
</select>
<p class="error" id="konbini-store-error"></p>
</div>
${field('customer-name', m.customerName, 'type="text" autocomplete="name" required aria-required="true" maxlength="100"')}
${field('phone', m.phone, 'type="tel" inputmode="tel" autocomplete="tel-national" required aria-required="true" maxlength="20"')}
</div>`
      : '';
  return `<div id="deferred-fields" hidden><p class="hint">${hint}</p></div>
${konbini}`;
}

export function checkoutPage(page: CheckoutPage): string {
  const m = messagesFor(page.lang);
  const amount = page.amount ? formatAmount(page.amount.minor, page.amount.currency, page.lang) : null;
  const tokenOnly = page.config.tokenOnly === true;
  // a bank transfer or konbini payment's instructions are mailed: the email is asked for then
  const deferred = page.methods.some((method) => method.id === 'bank_transfer' || method.id === 'konbini');
  const submit =
    page.submitText ?? (page.kind === 'frame' || tokenOnly ? m.save : amount ? `${m.pay} ${amount}` : m.pay);
  const methods =
    page.methods.length > 1
      ? `<fieldset class="methods">
<legend>${escapeHtml(m.method)}</legend>
${page.methods
  .map(
    (method, i) =>
      `<label class="method"><input type="radio" name="method" value="${escapeHtml(method.id)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(method.label)}</label>`,
  )
  .join('\n')}
</fieldset>`
      : '';
  const header = `<header class="summary">
${page.logo ? `<img class="logo" src="${escapeHtml(page.logo.src)}" alt="${escapeHtml(page.logo.alt)}">` : ''}
${page.storeName ? `<p class="store">${escapeHtml(page.storeName)}</p>` : ''}
<h1 id="checkout-title">${escapeHtml(page.title ?? m.pageTitle)}</h1>
${page.description ? `<p class="description">${escapeHtml(page.description)}</p>` : ''}
${amount ? `<p class="amount"><span class="visually-hidden">${escapeHtml(m.amount)}: </span><span id="amount">${escapeHtml(amount)}</span></p>` : ''}
${page.testMode ? `<p class="test-mode">${escapeHtml(m.testMode)}</p>` : ''}
</header>`;
  const langSwitch = `<nav class="lang" aria-label="${escapeHtml(m.language)}"><a href="${escapeHtml(page.otherLangHref)}" lang="${page.lang === 'ja' ? 'en' : 'ja'}">${page.lang === 'ja' ? 'English' : '日本語'}</a></nav>`;
  const body = `<main class="checkout${page.kind === 'frame' ? ' framed' : ''}" aria-labelledby="checkout-title">
${langSwitch}
<div class="card">
${header}
<form id="pay-form" class="pay-form" novalidate aria-labelledby="checkout-title">
${methods}
<div id="card-fields">
${field('cardholder', m.cardholder, 'type="text" autocomplete="cc-name" autocapitalize="characters" spellcheck="false" required aria-required="true" maxlength="60"')}
${field('card-number', m.cardNumber, 'type="text" inputmode="numeric" autocomplete="cc-number" spellcheck="false" required aria-required="true" maxlength="23"')}
<div class="row">
${field('expiry', m.expiry, 'type="text" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" required aria-required="true" maxlength="7"')}
${page.showCvv ? field('cvv', m.cvv, 'type="text" inputmode="numeric" autocomplete="cc-csc" spellcheck="false" required aria-required="true" maxlength="4"') : ''}
</div>
</div>
<div id="online-fields" hidden><p class="hint">${escapeHtml(m.onlineHint)}</p></div>
${deferredFields(page, m)}
${page.requireEmail || deferred ? field('email', m.email, 'type="email" autocomplete="email" spellcheck="false" required aria-required="true" maxlength="254"') : ''}
<p class="error form-error" id="form-error" role="alert"></p>
<button type="submit" id="pay-button" class="pay-button">${escapeHtml(submit)}</button>
<p class="secure">${escapeHtml(m.secure)}</p>
</form>
<div id="status" class="status" role="status" aria-live="polite"></div>
<div id="result" class="result" hidden tabindex="-1"></div>
<section id="instructions" class="instructions" hidden tabindex="-1" aria-labelledby="instructions-title">
<h2 id="instructions-title"></h2>
<p id="instructions-intro"></p>
<dl id="instructions-lines"></dl>
<p id="instructions-mailed" class="hint"></p>
</section>
</div>
</main>
<script type="application/json" id="checkout-config">${jsonBlock({ ...page.config, lang: page.lang, kind: page.kind, amount, methods: page.methods.map((method) => method.id), requireEmail: page.requireEmail, mailsInstructions: page.mailsInstructions === true, messages: m })}</script>
<script src="/checkout/assets/checkout.js"></script>`;
  return shell({
    lang: page.lang,
    title: `${page.title ?? m.pageTitle}${page.storeName ? ` – ${page.storeName}` : ''}`,
    body,
    themeCss: page.themeCss,
  });
}
