/**
 * Routes declared with their handlers (docs/architecture.md § One of each): a handler of its own
 * (with its docstring) names its method and path where it is written, so the path is written
 * once and `c.req.param()` is typed by it (Hono's typed path parameters), and a group's routes
 * are added in one call. Inline handlers (`app.get(path, (c) => …)`) need none of this.
 * @module
 */
import type { Context, Env, Hono } from "hono";
import type { BlankEnv } from "hono/types";

/** The HTTP methods a route is added for. */
export type RouteMethod = "get" | "post" | "put" | "patch" | "delete";

/** A handler with its method and path, for the dependencies `D` in the Hono environment `E`. */
export interface Route<D, E extends Env> {
  readonly method: RouteMethod;
  /** Hono's path, e.g. `/contracts/:id/terminate`. */
  readonly path: string;
  /** The handler; `c` is typed by `path` where the route is made ({@link routeMaker}). */
  // deno-lint-ignore no-explicit-any -- the path's own type is checked where the route is made
  handle(deps: D, c: Context<E, any>): Response | Promise<Response>;
}

/**
 * The maker of one group's routes: each gets the dependencies `D` and runs in the Hono
 * environment `E`; its `c` is `Context<E, path>`, so `c.req.param("id")` is a string only
 * where the path has `:id`.
 * @returns `route(method, path, handle)`
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { Hono } from "hono";
 * import { addRoutes, routeMaker } from "./route_table.ts";
 * const route = routeMaker<{ greeting: string }>();
 * const hello = route("get", "/hello/:name", (d, c) => c.text(`${d.greeting} ${c.req.param("name")}`));
 * const app = addRoutes(new Hono(), { greeting: "Hi" }, [hello]);
 * equal(await (await app.request("/hello/Ana")).text(), "Hi Ana");
 * ```
 */
export function routeMaker<D, E extends Env = BlankEnv>() {
  return <P extends string>(
    method: RouteMethod,
    path: P,
    handle: (deps: D, c: Context<E, P>) => Response | Promise<Response>,
  ): Route<D, E> => ({ method, path, handle });
}

/**
 * Add routes to an app, in their order, each handler getting `deps`.
 * @param app the Hono app
 * @param deps what every handler of the group gets
 * @param routes the routes ({@link routeMaker})
 * @returns app
 */
export function addRoutes<D, E extends Env>(
  app: Hono<E>,
  deps: D,
  routes: readonly Route<D, E>[],
): Hono<E> {
  for (const r of routes) app.on(r.method.toUpperCase(), r.path, (c) => r.handle(deps, c));
  return app;
}
