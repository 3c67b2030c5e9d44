import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StoresService, type StoreChangesInput } from '@kessai/accounts';
import type { StoreWithMerchant } from '@kessai/db';
import { DomainError, NotFoundError, PAGE_LIMIT_DEFAULT } from '@kessai/domain';
import {
  CHECKOUT_COLOR_KEYS,
  merchantConfigurationPatchSchema,
  type CheckoutColorKey,
} from '@kessai/store-configuration';
import { may } from '../roles';
import { ConsoleSessions, type ConsoleSession } from '../session/console-sessions';
import { CurrentSession, Requires } from '../session/decorators';
import { storeColors, storeListPage, storePage, type StoreFormValues } from '../views/store-settings';
import type { LogoForm } from './logo-upload';
import { auditOf, badFields, keysetPage, listedOrMissing, send } from './page-replies';
import { modeOf, pageContext } from './request-context';
import {
  colorField,
  storeListQuery,
  storeSettingsForm,
  type StoreSettingsForm,
} from './store-settings.schemas';

/** A form the page refuses: the fields it names (the API's names: `name`, `configuration.…`). */
class RefusedForm extends Error {
  constructor(readonly fields: string) {
    super(fields);
  }
}

/**
 * The store settings (docs/console.md): the merchant's stores and each store's page (every role
 * reads); owners and admins change a store's name, checkout colours and configuration, and remove
 * its logo, through StoresService.update, the use case of PATCH /stores/{id}, under the API's own
 * rules (`storeNameSchema`, `merchantConfigurationPatchSchema`, the use case's coherence checks),
 * with the audit row in its transaction. Another merchant's store is the missing page.
 */
@Controller()
export class StoreSettingsController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly stores: StoresService,
  ) {}

  @Get('settings/stores')
  @Requires('payments:read')
  async list(
    @CurrentSession() session: ConsoleSession,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const parsed = storeListQuery.safeParse(query);
    // a malformed cursor names no page of the merchant's: the missing page, as another merchant's
    if (!parsed.success) throw new NotFoundError('page');
    const { cursor, direction } = parsed.data;
    const backwards = direction === 'previous';
    const rows = await listedOrMissing(
      this.stores.list(scopeOf(session), {
        limit: PAGE_LIMIT_DEFAULT,
        cursor: cursor ?? null,
        direction: backwards ? 'asc' : 'desc',
      }),
    );
    const { page, nextQuery, previousQuery } = keysetPage(rows, cursor, backwards, {});
    const ctx = pageContext(request, this.sessions);
    return send(reply, 200, storeListPage(ctx, { stores: page, nextQuery, previousQuery }));
  }

  @Get('settings/stores/:id')
  @Requires('payments:read')
  async show(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const store = await this.stores.find(scopeOf(session), id);
    const { m } = pageContext(request, this.sessions);
    const notice =
      query.saved !== undefined ? m.storeSaved : query.logo !== undefined ? m.logoSaved : undefined;
    return send(reply, 200, this.render(session, request, store, { notice }));
  }

  @Post('settings/stores/:id')
  @Requires('stores:manage')
  async update(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const what = pageContext(request, this.sessions).m.storeRefused;
    const store = await this.stores.find(scopeOf(session), id);
    const typed = typedValues(body);
    try {
      const change = changeOf(store, body);
      const audit = auditOf(
        session,
        request,
        { action: 'store.update', targetType: 'store', targetId: store.id, mode: modeOf(request) },
        {
          ...(change.name !== undefined ? { name: change.name } : {}),
          ...(change.configuration ? { configuration: Object.keys(change.configuration) } : {}),
          ...(change.logo === null ? { logo: 'removed' } : {}),
        },
      );
      await this.stores.update(scopeOf(session), store.id, change, { audit });
    } catch (error) {
      const message = storeRefusal(error, what);
      if (message === null) throw error;
      return send(reply, 400, this.render(session, request, store, { typed, error: message }));
    }
    return reply.redirect(`/settings/stores/${store.id}?saved`, 303);
  }

  /**
   * A new checkout logo (a multipart form, logo-upload.ts): StoresService.update with the file, the
   * use case of PATCH /stores/{id} with a logo, whose rules decide (its type from its magic bytes,
   * PNG, JPEG or WebP and never SVG; at most LOGO_MAX_BYTES), with the audit row in its transaction.
   * The gateway then serves it as its type, with nosniff, to the hosted checkout.
   */
  @Post('settings/stores/:id/logo')
  @Requires('stores:manage')
  async uploadLogo(
    @CurrentSession() session: ConsoleSession,
    @Param('id') id: string,
    @Body() body: LogoForm | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const what = pageContext(request, this.sessions).m.logoRefused;
    const store = await this.stores.find(scopeOf(session), id);
    try {
      const logo = body?.logo;
      if (!logo || body.malformed || logo.size === 0) throw new RefusedForm('logo');
      const audit = auditOf(
        session,
        request,
        { action: 'store.update', targetType: 'store', targetId: store.id, mode: modeOf(request) },
        { logo: 'uploaded', bytes: logo.size, sha256: logo.sha256 },
      );
      await this.stores.update(scopeOf(session), store.id, { logo }, { audit });
    } catch (error) {
      const message = storeRefusal(error, what);
      if (message === null) throw error;
      return send(reply, 400, this.render(session, request, store, { error: message }));
    }
    return reply.redirect(`/settings/stores/${store.id}?logo`, 303);
  }

  private render(
    session: ConsoleSession,
    request: FastifyRequest,
    store: StoreWithMerchant,
    view: { notice?: string; error?: string; typed?: StoreFormValues },
  ): string {
    return storePage(pageContext(request, this.sessions), {
      store,
      canEdit: may(session.user.role, 'stores:manage'),
      ...view,
    });
  }
}

/** The merchant's own scope: every store of it. */
function scopeOf(session: ConsoleSession) {
  return { merchantId: session.user.merchantId, storeId: null };
}

/**
 * The use case's input from the form, checked by the API's schemas: the name when it changed; the
 * colours (blank: null, the merchant's) when they changed and the JSON change's keys, as one
 * `configuration` change; the logo's removal. Refuses (RefusedForm) what those schemas refuse.
 */
function changeOf(store: StoreWithMerchant, body: unknown): StoreChangesInput {
  const parsed = storeSettingsForm.safeParse(body);
  if (!parsed.success) throw new RefusedForm(badFields(parsed.error));
  const form = parsed.data;
  const patch: Record<string, unknown> = { ...jsonChange(form.configuration) };
  if ('checkout_colors' in patch) throw new RefusedForm('configuration.checkout_colors');
  const stored = storeColors(store);
  const colors = colorsOf(form);
  if (CHECKOUT_COLOR_KEYS.some((key) => (colors[key] ?? undefined) !== stored[key]))
    patch.checkout_colors = colors;
  const configuration = merchantConfigurationPatchSchema.safeParse(patch);
  if (!configuration.success) {
    const fields = configuration.error.issues.map((issue) =>
      ['configuration', ...issue.path.map(String), ...unknownKeys(issue)].join('.'),
    );
    throw new RefusedForm([...new Set(fields)].join(', '));
  }
  return {
    ...(form.name !== store.name ? { name: form.name } : {}),
    ...(Object.keys(configuration.data).length > 0 ? { configuration: configuration.data } : {}),
    ...(form.remove_logo && store.logo ? { logo: null } : {}),
  };
}

/** The keys a strict schema did not know (FORBIDDEN_PARAMETER in the API), as the field they name. */
function unknownKeys(issue: { code: string; keys?: string[] }): string[] {
  return issue.code === 'unrecognized_keys' && issue.keys ? [issue.keys.join(',')] : [];
}

/** The JSON change typed in the form: an object, or nothing when blank. */
function jsonChange(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RefusedForm('configuration');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RefusedForm('configuration');
  return value as Record<string, unknown>;
}

/** Each colour field as the patch takes it: a value, or null (blank) to follow the merchant. */
function colorsOf(form: StoreSettingsForm): Record<CheckoutColorKey, string | null> {
  return Object.fromEntries(
    CHECKOUT_COLOR_KEYS.map((key) => {
      const value = form[colorField(key)];
      return [key, value === undefined || value === '' ? null : value];
    }),
  ) as Record<CheckoutColorKey, string | null>;
}

/** What a refused form showed, so that the page shows it back. */
function typedValues(body: unknown): StoreFormValues {
  const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const text = (name: string) => {
    const value = fields[name];
    return typeof value === 'string' ? value : '';
  };
  return {
    name: text('name'),
    colors: Object.fromEntries(CHECKOUT_COLOR_KEYS.map((key) => [key, text(colorField(key))])),
    configuration: text('configuration'),
  };
}

/**
 * A refusal as the line the page shows: the form's fields, or the use case's code with each field
 * and reason (a colour below the contrast rule, a name in use); null for what is no refusal.
 */
function storeRefusal(error: unknown, what: string): string | null {
  if (error instanceof RefusedForm) return `${what}: VALIDATION_ERROR, ${error.fields}`;
  if (!(error instanceof DomainError) || error instanceof NotFoundError) return null;
  const reasons = error.errors.map((e) => (e.field ? `${e.field} ${e.reason}` : e.reason));
  return `${what}: ${[error.code, ...reasons.filter((r) => r !== error.code)].join(', ')}`;
}
