/** Keyboard: `/` search, `j`/`k` move, Enter open, Esc close, `l` load more (ignored while typing). */
import { useEffect, useRef } from "preact/hooks";

export interface KeyActions {
  focusSearch(): void;
  move(delta: number): void;
  open(): void;
  close(): void;
  more(): void;
}

export function useKeys(actions: KeyActions): void {
  const ref = useRef(actions);
  ref.current = actions;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      const typing =
        t &&
        (t.tagName === "INPUT" ||
          t.tagName === "TEXTAREA" ||
          t.tagName === "SELECT" ||
          t.isContentEditable);
      if (typing) return;
      const a = ref.current;
      switch (e.key) {
        case "/":
          e.preventDefault();
          a.focusSearch();
          break;
        case "j":
        case "ArrowDown":
          e.preventDefault();
          a.move(1);
          break;
        case "k":
        case "ArrowUp":
          e.preventDefault();
          a.move(-1);
          break;
        case "Enter":
          a.open();
          break;
        case "Escape":
          a.close();
          break;
        case "l":
          a.more();
          break;
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
