/**
 * Tells `logger.child()` bindings apart from a call's metadata. winston merges both
 * into one flat `info` object (`Object.assign({}, childMeta, info)`), so the
 * transport cannot see which keys came from the child. When the transport is added
 * to a logger, that logger's `child` is wrapped: the child's metadata also carries
 * its bindings (its parents' merged under its own) under an enumerable symbol, which
 * winston's merge copies into every `info` and JSON output ignores.
 *
 * Limits: a child made before the transport was added has no tag (its keys become
 * `data`); the child's metadata is copied when the child is made, so changing that
 * object afterwards no longer changes the child (winston alone would follow it).
 */

/** Where an `info` object carries its child bindings. */
export const BINDINGS = Symbol.for("stowage.winston.bindings");

/** Marks a logger whose `child` is already wrapped. */
const WRAPPED = Symbol.for("stowage.winston.childWrapped");

/** The part of a winston logger the wrapper touches. */
export interface ChildMaker {
  child?: unknown;
  defaultMeta?: unknown;
  [BINDINGS]?: Record<string, unknown>;
  [WRAPPED]?: true;
}

type ChildFn = (this: ChildMaker, meta: unknown) => ChildMaker;

/**
 * Wraps `logger.child` once (children inherit the wrapped method). Never throws: a
 * logger that cannot be wrapped (frozen, odd) keeps its child() and its bindings land in `data`.
 * @example tagChildBindings(winstonLogger); winstonLogger.child({ requestId: "r-1" }).info("hi")
 */
export function tagChildBindings(logger: ChildMaker): void {
  try {
    if (logger[WRAPPED] || typeof logger.child !== "function") return;
    const original = logger.child as ChildFn;
    const child: ChildFn = function (this: ChildMaker, meta: unknown) {
      if (meta === null || typeof meta !== "object" || Array.isArray(meta))
        return original.call(this, meta);
      const own = { ...(meta as Record<string, unknown>) };
      const bindings = { ...this[BINDINGS], ...own };
      const made = original.call(this, { ...own, [BINDINGS]: bindings });
      // A grandchild's bindings start from this child's.
      Object.defineProperty(made, BINDINGS, { value: bindings, configurable: true });
      return made;
    };
    Object.defineProperty(logger, "child", { value: child, configurable: true, writable: true });
    Object.defineProperty(logger, WRAPPED, { value: true, configurable: true });
  } catch {
    // Leave the logger as it was.
  }
}
