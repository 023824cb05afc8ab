/** Mounts Studio. The session token comes from `?token=` (kept for this tab); without it the page says how to get one. */
import { render } from "preact";
import { App } from "./app.js";
import { findToken } from "./lib/api-client.js";
import "./styles.css";

const root = document.getElementById("app")!;
const token = findToken(location.search);
if (token) {
  render(<App token={token} />, root);
} else {
  render(
    <div class="empty-state">
      <div class="card">
        <h2>This page needs Studio's session token</h2>
        <p>
          Open the full URL printed by <code>stowage studio</code> in the terminal (it ends with{" "}
          <code>?token=…</code>).
        </p>
      </div>
    </div>,
    root,
  );
}
