/**
 * Calls an event listener without letting it break the caller: what it throws is its
 * own (delivery and connectors go on). The one home of that rule for every event kind.
 * @example notify(onEvent, { type: "adopted", records: 12 });
 */
export function notify<E>(listener: ((event: E) => void) | undefined, event: E): void {
  if (!listener) return;
  try {
    listener(event);
  } catch {
    // A listener's error is its own.
  }
}
