/**
 * A body a framework's parser already read (Express's `express.json()` leaves the parsed
 * value in `req.body` and the stream consumed: issue 31 §1, the handler used to wait for
 * it forever) → candidate records, under the same limits and counts as a text body
 * (parse-body.ts): a JSON array is its records, a single object one record.
 */
import { BodyTally, UNREADABLE, type BodyLimits, type ParsedBody } from "./parse-body.js";

const encoder = new TextEncoder();

/** @example valueBody([{ message: "a" }], limits).records.length // 1 */
export function valueBody(value: unknown, limits: BodyLimits): ParsedBody {
  const tally = new BodyTally(limits);
  if (value === null || typeof value !== "object") {
    tally.out.refused = UNREADABLE;
    return tally.out;
  }
  const items: unknown[] = Array.isArray(value) ? value : [value];
  for (let index = 0; index < items.length; index++)
    if (!examine(tally, items[index], index)) break;
  return tally.done();
}

function examine(tally: BodyTally, item: unknown, index: number): boolean {
  if (tally.full()) {
    tally.out.tooMany++;
    return true;
  }
  if (item === null || typeof item !== "object" || Array.isArray(item))
    return tally.malformed(index);
  // Fields first (they bound the nesting), so the JSON.stringify that measures it cannot overflow the stack.
  if (fieldsOver(item, tally.limits.maxFields)) {
    tally.out.tooManyFields++;
    return true;
  }
  let bytes: number;
  try {
    bytes = encoder.encode(JSON.stringify(item)).length;
  } catch {
    return tally.malformed(index);
  }
  if (bytes > tally.limits.maxRecordBytes) tally.out.oversized++;
  else tally.out.records.push({ value: item, index });
  return true;
}

/** True when `value` holds more than `limit` keys and array elements, nested included; stops there, no recursion. */
function fieldsOver(value: object, limit: number): boolean {
  let fields = 0;
  const stack: object[] = [value];
  for (let cur = stack.pop(); cur !== undefined; cur = stack.pop())
    for (const child of Object.values(cur)) {
      if (++fields > limit) return true;
      if (child !== null && typeof child === "object") stack.push(child as object);
    }
  return false;
}
