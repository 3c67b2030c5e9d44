import { z } from 'zod';
import {
  Prisma,
  ProductCodeTakenError,
  type AppTokensRepository,
  type CheckoutForm,
  type CheckoutFormsRepository,
  type CheckoutProduct,
  type CheckoutProductsRepository,
  type StoresRepository,
} from '@kessai/db';
import { isKnownCurrency, isUuid, PAYMENT_TYPES } from '@kessai/domain';
import { presentCheckoutForm, presentCheckoutProduct } from '@kessai/presenters';
import { AdminError } from './admin.service';

/**
 * Hosted checkout form designs and products from the admin CLI (docs/hosted-checkout.md): the API
 * only reads them (GET /checkout/forms/{id}, GET /checkout/products/{id}). A design is given as
 * snake_case JSON (`--set`), the fields of GET /checkout/forms/{id}; what is not given keeps its
 * default (or, on update, its value).
 */
export interface CheckoutRepositories {
  stores: StoresRepository;
  appTokens: AppTokensRepository;
  checkoutForms: CheckoutFormsRepository;
  checkoutProducts: CheckoutProductsRepository;
}

const LANGUAGES = ['en_us', 'ja_jp', 'zh_cn', 'zh_tw'] as const;
const text = (max: number) => z.string().trim().min(1).max(max).nullable();
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb')
  .nullable();
const redirectUrl = z
  .string()
  .url()
  .max(2048)
  .refine((value) => /^https?:\/\//.test(value), 'an http(s) URL')
  .nullable();
const perLanguage = <T extends z.ZodTypeAny>(value: T) => z.record(z.enum(LANGUAGES), value);
const scalar = z.union([z.string().max(1000), z.number(), z.boolean()]);
const metadata = z.record(z.string().max(100), z.union([scalar, z.array(scalar).max(50)]));

const customField = z
  .object({
    key: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a key is lower case letters, digits and _'),
    label: z.string().trim().min(1).max(200),
    type: z.enum(['string', 'select']),
    required: z.boolean().optional(),
    options: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
  })
  .strict()
  .refine((field) => field.type !== 'select' || (field.options?.length ?? 0) > 0, 'a select has options');

/** A form design as the operator writes it (snake_case; every field optional). */
export const checkoutFormDesignSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    checkout: z.enum(['payment', 'token']),
    payment_type: z.enum(PAYMENT_TYPES).nullable(),
    token_type: z.enum(['one_time', 'subscription', 'recurring']),
    usage_limit: z.enum(['daily', 'weekly', 'monthly', 'annually']).nullable(),
    capture: z.boolean(),
    only_direct_currency: z.boolean(),
    supported_payment_methods: z
      .array(z.string().regex(/^[a-z0-9_]{1,64}$/))
      .min(1)
      .max(50),
    cvv_authorize: z.boolean(),
    confirmation_required: z.boolean(),
    title: text(200),
    description: text(2000),
    header: text(200),
    locale: z.enum([...LANGUAGES, 'auto']).nullable(),
    dark: z.boolean(),
    submit_button_text: text(100),
    show_cvv: z.boolean(),
    display_store_name: z.boolean(),
    display_store_logo: z.boolean(),
    hide_privacy_link: z.boolean(),
    header_color: color,
    button_color: color,
    background_color: color,
    require_name: z.boolean(),
    require_name_kana: z.boolean(),
    require_email: z.boolean(),
    require_billing_address: z.boolean(),
    require_phone_number: z.boolean(),
    address: z.boolean(),
    custom_fields: perLanguage(z.array(customField).max(20)).nullable(),
    custom_fields_titles: perLanguage(z.string().trim().min(1).max(200)).nullable(),
    order_summary_titles: perLanguage(z.string().trim().min(1).max(200)).nullable(),
    success_redirect_url: redirectUrl,
    failure_redirect_url: redirectUrl,
    pending_redirect_url: redirectUrl,
    descriptor: text(200),
    ignore_descriptor_on_error: z.boolean(),
    metadata,
  })
  .partial()
  .strict();

type FormDesign = z.infer<typeof checkoutFormDesignSchema>;

/** A product as the operator writes it (snake_case). */
export const checkoutProductSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    code: z.string().trim().min(1).max(100).nullable(),
    description: text(2000),
    amount: z.number().int().min(1).max(9_999_999_999),
    currency: z
      .string()
      .transform((value) => value.toUpperCase())
      .refine(isKnownCurrency, 'an ISO 4217 currency Kessai knows'),
    shipping_fees: z.number().int().min(0).max(9_999_999_999).nullable(),
    token_type: z.enum(['one_time', 'subscription', 'recurring']),
    subscription_period: z
      .enum(['daily', 'weekly', 'biweekly', 'monthly', 'bimonthly', 'quarterly', 'semiannually', 'annually'])
      .nullable(),
    subscription_cyclical_period: z
      .string()
      .regex(/^P(\d+[YMWD])+$/)
      .nullable(),
    subscription_cycles: z.number().int().min(1).max(1000).nullable(),
    subscription_initial_amount: z.number().int().min(0).max(9_999_999_999).nullable(),
    subscription_retry_interval: z
      .string()
      .regex(/^P(\d+[YMWD])+$/)
      .nullable(),
    subscription_preserve_end_of_month: z.boolean().nullable(),
    active: z.boolean(),
    metadata,
  })
  .partial()
  .strict();

type ProductInput = z.infer<typeof checkoutProductSchema>;

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, input: unknown, what: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    return `${issue.path.join('.') || what}${keys}: ${issue.message}`;
  });
  throw new AdminError(`invalid ${what}: ${fields.join('; ')}`);
}

/** The design's columns: a field not given is undefined, which Prisma leaves alone (default or kept). */
function formColumns(design: FormDesign) {
  return {
    name: design.name,
    checkout: design.checkout,
    paymentType: design.payment_type,
    tokenType: design.token_type,
    usageLimit: design.usage_limit,
    capture: design.capture,
    onlyDirectCurrency: design.only_direct_currency,
    supportedPaymentMethods: design.supported_payment_methods,
    cvvAuthorize: design.cvv_authorize,
    confirmationRequired: design.confirmation_required,
    title: design.title,
    description: design.description,
    header: design.header,
    locale: design.locale,
    dark: design.dark,
    submitButtonText: design.submit_button_text,
    showCvv: design.show_cvv,
    displayStoreName: design.display_store_name,
    displayStoreLogo: design.display_store_logo,
    hidePrivacyLink: design.hide_privacy_link,
    headerColor: design.header_color,
    buttonColor: design.button_color,
    backgroundColor: design.background_color,
    requireName: design.require_name,
    requireNameKana: design.require_name_kana,
    requireEmail: design.require_email,
    requireBillingAddress: design.require_billing_address,
    requirePhoneNumber: design.require_phone_number,
    address: design.address,
    customFields: jsonOrNull(design.custom_fields),
    customFieldsTitles: jsonOrNull(design.custom_fields_titles),
    orderSummaryTitles: jsonOrNull(design.order_summary_titles),
    successRedirectUrl: design.success_redirect_url,
    failureRedirectUrl: design.failure_redirect_url,
    pendingRedirectUrl: design.pending_redirect_url,
    descriptor: design.descriptor,
    ignoreDescriptorOnError: design.ignore_descriptor_on_error,
    metadata: design.metadata,
  } satisfies Prisma.CheckoutFormUncheckedUpdateInput;
}

/** Prisma writes SQL NULL into a Json? column only as Prisma.DbNull. */
function jsonOrNull<T>(value: T | null | undefined): T | typeof Prisma.DbNull | undefined {
  return value === null ? Prisma.DbNull : value;
}

function productColumns(input: ProductInput) {
  const big = (value: number | null | undefined) =>
    value === undefined ? undefined : value === null ? null : BigInt(value);
  return {
    name: input.name,
    code: input.code,
    description: input.description,
    amount: input.amount === undefined ? undefined : BigInt(input.amount),
    currency: input.currency,
    shippingFees: big(input.shipping_fees),
    tokenType: input.token_type,
    subscriptionPeriod: input.subscription_period,
    subscriptionCyclicalPeriod: input.subscription_cyclical_period,
    subscriptionCycles: input.subscription_cycles,
    subscriptionInitialAmount: big(input.subscription_initial_amount),
    subscriptionRetryInterval: input.subscription_retry_interval,
    subscriptionPreserveEndOfMonth: input.subscription_preserve_end_of_month,
    active: input.active,
    metadata: input.metadata,
  } satisfies Prisma.CheckoutProductUncheckedUpdateInput;
}

/** The form as the API presents it. */
export function describeCheckoutForm(form: CheckoutForm) {
  return presentCheckoutForm(form);
}

/** The product as the API presents it. */
export function describeCheckoutProduct(product: CheckoutProduct) {
  return presentCheckoutProduct(product);
}

function uuidOf(value: string, flag: string): string {
  if (!isUuid(value)) throw new AdminError(`--${flag} must be a UUID`);
  return value.toLowerCase();
}

async function requireStore(repositories: CheckoutRepositories, storeId: string) {
  const store = await repositories.stores.findById(uuidOf(storeId, 'store'));
  if (!store || store.deletedOn !== null) throw new AdminError(`no store ${storeId}`);
  return store;
}

/**
 * A new form design for a store, acting with one of the store's app tokens (its `app_id`; the form's
 * mode is the token's). A link in the other mode cannot use it.
 */
export async function createCheckoutForm(
  repositories: CheckoutRepositories,
  input: { storeId: string; appTokenId: string; name: string; design?: unknown },
) {
  const store = await requireStore(repositories, input.storeId);
  const token = await repositories.appTokens.findById(uuidOf(input.appTokenId, 'app-token'));
  if (!token || token.revokedOn !== null || token.storeId !== store.id)
    throw new AdminError(`no active app token ${input.appTokenId} of store ${store.id}`);
  const design = parse(
    checkoutFormDesignSchema,
    { ...(input.design ?? {}), name: input.name },
    'form design',
  );
  const form = await repositories.checkoutForms.create({
    ...formColumns(design),
    name: input.name,
    merchantId: store.merchantId,
    storeId: store.id,
    appTokenId: token.id,
    mode: token.mode,
  });
  return describeCheckoutForm(form);
}

/** Changes the fields of a form's design that `design` gives (null clears a nullable one). */
export async function updateCheckoutForm(repositories: CheckoutRepositories, id: string, design: unknown) {
  const changes = parse(checkoutFormDesignSchema, design, 'form design');
  const form = await repositories.checkoutForms.update(uuidOf(id, 'id'), formColumns(changes));
  if (!form) throw new AdminError(`no checkout form ${id}`);
  return describeCheckoutForm(form);
}

export async function showCheckoutForm(repositories: CheckoutRepositories, id: string) {
  const form = await repositories.checkoutForms.findById(uuidOf(id, 'id'));
  if (!form) throw new AdminError(`no checkout form ${id}`);
  return describeCheckoutForm(form);
}

export async function listCheckoutForms(repositories: CheckoutRepositories, storeId: string) {
  const store = await requireStore(repositories, storeId);
  return (await repositories.checkoutForms.listForStore(store.id)).map(describeCheckoutForm);
}

/** A product of a store (its code, when given, unique in the store). */
export async function createCheckoutProduct(
  repositories: CheckoutRepositories,
  input: { storeId: string; product: unknown },
) {
  const store = await requireStore(repositories, input.storeId);
  const product = parse(checkoutProductSchema, input.product, 'product');
  if (product.name === undefined || product.amount === undefined || product.currency === undefined)
    throw new AdminError('a product needs --name, --amount and --currency');
  try {
    const created = await repositories.checkoutProducts.create({
      ...productColumns(product),
      name: product.name,
      amount: BigInt(product.amount),
      currency: product.currency,
      merchantId: store.merchantId,
      storeId: store.id,
    });
    return describeCheckoutProduct(created);
  } catch (error) {
    if (error instanceof ProductCodeTakenError) throw new AdminError(error.message);
    throw error;
  }
}

export async function updateCheckoutProduct(repositories: CheckoutRepositories, id: string, change: unknown) {
  const changes = parse(checkoutProductSchema, change, 'product');
  try {
    const product = await repositories.checkoutProducts.update(uuidOf(id, 'id'), productColumns(changes));
    if (!product) throw new AdminError(`no checkout product ${id}`);
    return describeCheckoutProduct(product);
  } catch (error) {
    if (error instanceof ProductCodeTakenError) throw new AdminError(error.message);
    throw error;
  }
}

export async function listCheckoutProducts(repositories: CheckoutRepositories, storeId: string) {
  const store = await requireStore(repositories, storeId);
  return (await repositories.checkoutProducts.listForStore(store.id)).map(describeCheckoutProduct);
}
