/** Pretty JSON with quiet syntax colours (keys, strings, numbers, literals); text stays selectable. */
import type { JSX } from "preact";

const TOKEN =
  /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

/**
 * @example <JsonView value={record} />
 */
export function JsonView(props: { value: unknown; testid?: string }) {
  const text = JSON.stringify(props.value, null, 2) ?? "undefined";
  const parts: (string | JSX.Element)[] = [];
  let last = 0;
  let i = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index;
    if (at > last) parts.push(text.slice(last, at));
    const cls =
      m[1] !== undefined
        ? m[2] !== undefined
          ? "j-key"
          : "j-str"
        : m[3] !== undefined
          ? "j-num"
          : "j-lit";
    parts.push(
      <span class={cls} key={i++}>
        {m[1] ?? m[3] ?? m[4]}
      </span>,
    );
    if (m[2]) parts.push(m[2]);
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return (
    <pre class="block" data-testid={props.testid}>
      {parts}
    </pre>
  );
}
