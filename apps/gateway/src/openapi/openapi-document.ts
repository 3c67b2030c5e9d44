import { RequestMethod, type Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import {
  extendZodWithOpenApi,
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z, type AnyZodObject, type ZodTypeAny } from 'zod';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, PAGE_LIMIT_MIN } from '@kessai/domain';
import {
  ACCEPTED_CREDENTIALS,
  DEFAULT_CREDENTIALS,
  ROUTE_ACCESS,
  type RouteAccess,
} from '../auth/decorators';
import type { CredentialKind } from '../auth/principal';
import { uuid } from '../http/request.schemas';
import { handlerNamesOf } from '../http/route-handlers';
import { CONTROLLER_DOCS, type Answer } from './operations';
import { ErrorEnvelope, RESPONSE_SCHEMAS, type ResponseName } from './response-schemas';

extendZodWithOpenApi(z);

/** The version of the API the document describes: UnivaPay's public API, as the SDK speaks it. */
const INFO = {
  title: 'Kessai API',
  version: '1',
  description:
    'A payment API wire-compatible with UnivaPay’s public API: the official `univapay-node` SDK works ' +
    'unchanged. Fields are snake_case; amounts are integers in minor units. Every error answer is the ' +
    'error envelope. Send `Idempotency-Key` on a write to make its retry safe. Generated from the ' +
    'gateway’s code (`npm run openapi:generate`).',
};

const HTTP_METHODS: Partial<Record<RequestMethod, RouteConfig['method']>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
};

/** limit, cursor and cursor_direction, as parsePageRequest reads them (api-reference §4). */
const pageQuery = z.object({
  limit: z
    .string()
    .regex(/^\d+$/)
    .optional()
    .describe(`items per page, ${PAGE_LIMIT_MIN}–${PAGE_LIMIT_MAX}; ${PAGE_LIMIT_DEFAULT} when absent`),
  cursor: uuid.optional().describe('the id of the last item seen; the page starts after it'),
  cursor_direction: z.enum(['asc', 'desc']).optional().describe('desc (newest first) when absent'),
});

const idempotencyKey = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'makes a retry of this write return the first answer (Idempotency-Status: replayed) instead of doing it again',
    ),
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid request (VALIDATION_ERROR and the field errors) or refused by a business rule',
  401: 'no, or invalid, credentials (a WWW-Authenticate header names the scheme)',
  403: 'the credentials may not do this',
  404: 'no such resource, or not the caller’s',
  409: 'an Idempotency-Key conflict, or a write that conflicts with the resource’s state',
  429: 'rate limited (Retry-After)',
};

interface RouteFacts {
  method: RouteConfig['method'];
  path: string;
  status: number;
  access: RouteAccess | 'app_token';
  credentials: readonly CredentialKind[];
  rateLimited: boolean;
}

function factsOf(controller: Type, handler: string): RouteFacts | null {
  const fn = (controller.prototype as Record<string, unknown>)[handler];
  if (typeof fn !== 'function') return null;
  const target = fn as (...args: unknown[]) => unknown;
  const routePath = Reflect.getMetadata(PATH_METADATA, target) as string | undefined;
  const requestMethod = Reflect.getMetadata(METHOD_METADATA, target) as RequestMethod | undefined;
  if (routePath === undefined || requestMethod === undefined) return null;
  const method = HTTP_METHODS[requestMethod];
  if (!method) throw new Error(`${controller.name}.${handler}: method ${requestMethod} is not documented`);
  const base = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
  const joined = ['', base, routePath]
    .flatMap((part) => part.split('/'))
    .filter((part) => part.length > 0)
    .map((part) => (part.startsWith(':') ? `{${part.slice(1)}}` : part))
    .join('/');
  const status =
    (Reflect.getMetadata(HTTP_CODE_METADATA, target) as number | undefined) ??
    (requestMethod === RequestMethod.POST ? 201 : 200);
  const access =
    (Reflect.getMetadata(ROUTE_ACCESS, target) as RouteAccess | undefined) ??
    (Reflect.getMetadata(ROUTE_ACCESS, controller) as RouteAccess | undefined) ??
    'app_token';
  const credentials =
    (Reflect.getMetadata(ACCEPTED_CREDENTIALS, target) as CredentialKind[] | undefined) ??
    (Reflect.getMetadata(ACCEPTED_CREDENTIALS, controller) as CredentialKind[] | undefined) ??
    DEFAULT_CREDENTIALS;
  const routeConfig = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, target) as
    { rateLimit?: boolean } | undefined;
  return {
    method,
    path: `/${joined}`,
    status,
    access,
    credentials,
    rateLimited: routeConfig?.rateLimit !== false,
  };
}

/** The path's parameters: ids are UUIDs (a malformed one answers 404, as an unknown one does). */
function pathParams(path: string): AnyZodObject | undefined {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  if (names.length === 0) return undefined;
  return z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
}

/** The object under a schema's refinements and transforms (a query is a set of named parameters). */
function objectOf(schema: ZodTypeAny): AnyZodObject {
  let current: ZodTypeAny = schema;
  while (current instanceof z.ZodEffects) current = (current as z.ZodEffects<ZodTypeAny>).innerType();
  if (!(current instanceof z.ZodObject)) throw new Error('a query schema must be an object');
  return current as AnyZodObject;
}

function securityOf(facts: RouteFacts): RouteConfig['security'] {
  if (facts.access === 'open') return [];
  const schemes: RouteConfig['security'] = [];
  if (facts.credentials.includes('app_token')) schemes.push({ appToken: [] });
  if (facts.credentials.includes('login')) schemes.push({ loginToken: [] });
  if (facts.credentials.includes('checkout_link')) schemes.push({ checkoutLink: [] });
  if (facts.credentials.includes('customer')) schemes.push({ customerToken: [] });
  return schemes;
}

/** Builds the OpenAPI 3.1 document of the gateway from its controllers and their zod schemas. */
export function buildOpenApiDocument(controllers: readonly Type[]): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'appToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Bearer <secret>.<jwt>` (an app token with its secret); a browser route also takes `Bearer <jwt>` ' +
      'alone from an Origin in the token’s domains.',
  });
  registry.registerComponent('securitySchemes', 'loginToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'a merchant user’s login token from POST /authenticate',
  });
  registry.registerComponent('securitySchemes', 'checkoutLink', {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Bearer <link secret>.<link jwt>`: a checkout link’s own credentials (the hosted link page), for ' +
      'that link’s token and payment only, from the gateway’s own Origin (docs/hosted-checkout.md).',
  });
  registry.registerComponent('securitySchemes', 'customerToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Bearer <jwt>`: a store customer’s token from refers.authorize (POST …/customers/authenticate ' +
      'with the emailed code), on that customer’s own subscriptions only (decision 0058).',
  });

  const named = {} as Record<ResponseName, ZodTypeAny>;
  for (const name of Object.keys(RESPONSE_SCHEMAS) as ResponseName[])
    named[name] = registry.register(name, RESPONSE_SCHEMAS[name]);
  registry.register('ErrorEnvelope', ErrorEnvelope);
  const errorRef = (status: number | 'default') => ({ $ref: `#/components/responses/Error${status}` });
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS))
    registry.registerComponent('responses', `Error${status}`, {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    });
  registry.registerComponent('responses', 'Errordefault', {
    description: 'any other failure, in the error envelope (a 500 carries error_id)',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  });
  const pages = new Map<string, ZodTypeAny>();
  const pageOf = (name: ResponseName, totalHits: boolean): ZodTypeAny => {
    const key = `${name}Page${totalHits ? 'WithTotal' : ''}`;
    let schema = pages.get(key);
    if (!schema) {
      schema = registry.register(
        key,
        z.object({
          items: z.array(named[name]),
          has_more: z.boolean(),
          ...(totalHits ? { total_hits: z.number().int() } : {}),
        }),
      );
      pages.set(key, schema);
    }
    return schema;
  };

  const answerOf = (answer: Answer): ResponseConfig => {
    if (typeof answer === 'string')
      return { description: answer, content: { 'application/json': { schema: named[answer] } } };
    if ('page' in answer)
      return {
        description: `a page of ${answer.page}`,
        content: { 'application/json': { schema: pageOf(answer.page, answer.totalHits === true) } },
      };
    if ('array' in answer)
      return {
        description: `${answer.array}[]`,
        content: { 'application/json': { schema: z.array(named[answer.array]) } },
      };
    return { description: answer.description, content: { [answer.content]: { schema: z.string() } } };
  };

  for (const controller of controllers) {
    const docs = CONTROLLER_DOCS[controller.name];
    if (!docs) throw new Error(`${controller.name} has no entry in CONTROLLER_DOCS (openapi/operations.ts)`);
    const operations = docs.operations;
    const handlers = handlerNamesOf(controller).filter((name) => factsOf(controller, name) !== null);
    for (const name of Object.keys(operations))
      if (!handlers.includes(name))
        throw new Error(`${controller.name}.${name} is documented but is no route`);

    for (const handler of handlers) {
      const facts = factsOf(controller, handler);
      const doc = operations[handler];
      if (!facts || !doc) throw new Error(`${controller.name}.${handler} has no documentation`);
      const responses: RouteConfig['responses'] = {
        [facts.status]: doc.ok ? answerOf(doc.ok) : { description: 'no content' },
      };
      const errors = new Set<number>();
      if (doc.body || doc.query || doc.paged) errors.add(400);
      if (facts.access !== 'open') [401, 403].forEach((status) => errors.add(status));
      if (facts.path.includes('{')) errors.add(404);
      if (facts.method !== 'get') errors.add(409);
      if (facts.rateLimited) errors.add(429);
      for (const status of errors) responses[status] = errorRef(status);
      // a page's own refusals are pages too, not the JSON envelope
      for (const status of doc.refusals?.statuses ?? [])
        responses[status] = {
          description: doc.refusals?.description ?? '',
          content: { [doc.refusals?.content ?? 'text/html']: { schema: z.string() } },
        };
      responses.default = errorRef('default');

      const query =
        doc.query && doc.paged
          ? objectOf(doc.query).merge(pageQuery)
          : doc.query
            ? objectOf(doc.query)
            : doc.paged
              ? pageQuery
              : undefined;
      const writes = facts.method !== 'get';
      registry.registerPath({
        method: facts.method,
        path: facts.path,
        operationId: `${docs.tag.replace(/\s+/g, '')}.${handler}`,
        tags: [docs.tag],
        summary: doc.summary,
        description:
          [doc.description, doc.sdk ? `SDK: \`${doc.sdk}\`` : undefined]
            .filter((part) => part !== undefined)
            .join('\n\n') || undefined,
        security: securityOf(facts),
        request: {
          params: pathParams(facts.path),
          query,
          headers: writes && facts.access !== 'open' ? idempotencyKey : undefined,
          body: doc.body
            ? {
                required: doc.optionalBody !== true,
                content: {
                  'application/json': { schema: doc.form ? jsonBodyOfForm(doc.body) : doc.body },
                  ...(doc.form ? { 'multipart/form-data': { schema: FORM_BODY } } : {}),
                },
              }
            : undefined,
        },
        responses,
      });
    }
  }

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: INFO,
    servers: [{ url: '/' }],
  });
  return withNullInNullableEnums(JSON.parse(JSON.stringify(document))) as Record<string, unknown>;
}

/**
 * The JSON body of a route that also takes a form: its `logo` can only be null there (the logo
 * removed); a file comes as multipart/form-data (FORM_BODY).
 */
function jsonBodyOfForm(body: z.ZodTypeAny): z.ZodTypeAny {
  if (!(body instanceof z.ZodObject)) return body;
  return body.extend({
    logo: z
      .null()
      .optional()
      .openapi({ description: 'null removes the store’s logo; a new logo is sent as multipart/form-data' }),
  });
}

/** A JSON body as the SDK sends it when it holds a file (http/form-body.ts). */
const FORM_BODY = z
  .object({
    logo: z
      .string()
      .openapi({ format: 'binary', description: 'a PNG, JPEG or WebP image of at most 256 KiB' })
      .optional(),
  })
  .catchall(z.string())
  .openapi({
    description:
      'The JSON body’s fields flattened as the SDK sends them (`configuration.card_configuration.enabled`, ' +
      '`configuration.minimum_charge_amounts[0].amount`), every value text, typed as the JSON body types it; ' +
      '`logo` a file.',
  });

/**
 * `z.enum([...]).nullable()` comes out of zod-to-openapi 7 (the last for zod 3) as
 * `{type: [string, null], enum: [...]}`, whose `enum` still refuses null; 8 puts null in the list
 * (asteasolutions/zod-to-openapi#342) but needs zod 4. Until then: the same fix, on the JSON.
 */
export function withNullInNullableEnums(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withNullInNullableEnums);
  if (value === null || typeof value !== 'object') return value;
  const object = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, withNullInNullableEnums(inner)]),
  ) as Record<string, unknown>;
  const { type, enum: values } = object;
  if (Array.isArray(type) && type.includes('null') && Array.isArray(values) && !values.includes(null))
    object.enum = [...(values as unknown[]), null];
  return object;
}

/** The routes the document describes: method and path of each of its operations. */
export function documentedOperations(document: Record<string, unknown>): { method: string; path: string }[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(key))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
}
