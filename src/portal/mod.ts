/**
 * The portal boundary: the {@link PortalAdapter} interface and its shapes. The test portal is
 * in `test/mod.ts`, the NRA public API client in `live/mod.ts` (loaded only when configured).
 * @module
 */
export * from "./adapter.ts";
