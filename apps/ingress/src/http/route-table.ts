import Router, { type RouterMiddleware } from '@koa/router';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/**
 * Who may call a route: a tenant's API key (every /v1 route), the operator's admin token, anyone
 * (health, metrics, the document), or whoever holds a signed link (the embedded storage's files).
 */
export type RouteAuth = 'apiKey' | 'admin' | 'none' | 'signedLink';

/**
 * Which router serves a route: `api` (after authentication and body parsing), `admin` (only with an
 * admin token configured), `open` (before authentication), `storage` (mounted by the embedded
 * profile's local storage adapter, which owns its handler; documented here, checked by the probe).
 */
export type RouteMount = 'api' | 'admin' | 'open' | 'storage';

/** A JSON schema inline, or the name of one in the document's components. */
export type SchemaRef = string | Record<string, unknown>;

export interface ResponseSpec {
  description: string;
  /** JSON body; omitted for bodies that are not JSON (files) or empty (204). */
  schema?: SchemaRef;
  /** Non-JSON bodies: media type → schema (`{type:'string',format:'binary'}` for files). */
  content?: Record<string, Record<string, unknown>>;
  example?: unknown;
  /**
   * Instead of `example`, for an answer with several shapes (a render ONGOING, SUCCESS or FAILED;
   * a batch that partly failed): one named example per shape, as OpenAPI's `examples` map.
   */
  examples?: Record<string, { summary: string; value: unknown }>;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface ParameterSpec {
  name: string;
  in: 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Record<string, unknown>;
}

/** One route, declared once: the router mounts it and the OpenAPI document describes it from this. */
export interface RouteSpec<Id extends string = string> {
  operationId: Id;
  method: HttpMethod;
  /** OpenAPI path template (`/v1/pdf/status/{requestId}`); the router gets `:requestId`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: RouteAuth;
  /**
   * API-key routes: the scope the key needs (403 FORBIDDEN without it). Absent: `render`, every
   * tenant route but the key and S3 connection management, which need `manage`.
   */
  scope?: 'render' | 'manage';
  mount: RouteMount;
  /** Path parameters' descriptions (every `{name}` of the path is a required string parameter). */
  pathParams?: Record<string, string>;
  parameters?: ParameterSpec[];
  body?: { schema: SchemaRef; example?: unknown; required?: boolean };
  /** Answers this route gives, by status, beyond the common errors the generator adds. */
  responses: Record<string, ResponseSpec>;
  /** The request is appended to the log: 503 when the log cannot take it in time. */
  appendsToLog?: boolean;
  callbacks?: Record<string, unknown>;
  /** Served only when configured (the admin API, /metrics on this port): said in the document. */
  conditional?: string;
}

/** Declares a route, keeping its operationId as a literal type (the handler map is keyed by it). */
export function route<const Id extends string>(spec: RouteSpec<Id>): RouteSpec<Id> {
  return spec;
}

/** `/v1/pdf/status/{requestId}` → `/v1/pdf/status/:requestId` */
export function routerPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** The router's own spelling back to OpenAPI's (`:id` and `*key` → `{id}`, `{key}`). */
export function openApiPath(routerPathText: string): string {
  return routerPathText.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

export type RouteHandler = RouterMiddleware;
export type Handlers<Id extends string> = { [K in Id]: RouteHandler };

/**
 * A router serving exactly the given routes, each with the handler of its operationId (after the
 * `before` middleware: the same for every route, e.g. the admin token check, or chosen from the
 * route's spec, e.g. its key scope). Mounted in table order: the first match answers.
 */
export function buildRouter<Id extends string>(
  specs: readonly RouteSpec<Id>[],
  handlers: Handlers<Id>,
  before: RouteHandler[] | ((spec: RouteSpec<Id>) => RouteHandler[]) = [],
): Router {
  const router = new Router();
  for (const spec of specs) {
    const handler = handlers[spec.operationId];
    const first = typeof before === 'function' ? before(spec) : before;
    router.register(routerPath(spec.path), [spec.method.toUpperCase()], [...first, handler], { name: spec.operationId });
  }
  return router;
}
