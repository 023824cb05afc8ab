/**
 * Issue 34 §1: Express records carry the full route pattern with its mount path — a
 * route in a router mounted at `/api` (and one nested under `/api/v2`) is recorded as
 * `/api/orders/:id`, whether the handler answers or throws; a 404 is "(no route)" (never
 * `undefined/…`). A real Express 5 server on loopback, records read back from a local store.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/index.js";
import { stowageExpress, stowageExpressErrors } from "../../src/express.js";
import { localConfig } from "../support/loggers.js";
import { readBack } from "../support/read-back.js";

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

describe("issue 34 §1: Express route patterns include the mount path", () => {
  it("for answers, thrown errors, nested routers and 404s", async () => {
    const { config, store } = localConfig();
    const log = createLogger(config);
    const app = express();
    app.use(stowageExpress(log));
    const api = express.Router();
    api.get("/orders/:id", (req, res) => void res.json({ id: req.params.id }));
    api.get("/boom", () => {
      throw new Error("kaboom");
    });
    const v2 = express.Router();
    v2.get("/items/:sku", (_req, res) => void res.status(201).end());
    v2.get("/fail/:n", () => {
      throw new Error("v2 failure");
    });
    api.use("/v2", v2);
    app.use("/api", api);
    app.get("/", (_req, res) => void res.send("root"));
    app.use(stowageExpressErrors());
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const paths = [
      "/api/orders/7",
      "/api/boom",
      "/api/v2/items/a1",
      "/api/v2/fail/3",
      "/api/none",
      "/",
    ];
    for (const p of paths) await (await fetch(base + p)).text();
    await log.close();

    const records = (await readBack(store, "")).flatMap((o) => o.lines);
    const byPath = new Map(
      records.map((r) => {
        const data = r.data as { path: string; route?: string; status: number };
        return [data.path, data] as const;
      }),
    );
    expect(byPath.get("/api/orders/7")).toMatchObject({ route: "/api/orders/:id", status: 200 });
    expect(byPath.get("/api/boom")).toMatchObject({ route: "/api/boom", status: 500 });
    expect(byPath.get("/api/v2/items/a1")).toMatchObject({
      route: "/api/v2/items/:sku",
      status: 201,
    });
    expect(byPath.get("/api/v2/fail/3")).toMatchObject({ route: "/api/v2/fail/:n", status: 500 });
    expect(byPath.get("/api/none")?.status).toBe(404);
    expect(byPath.get("/api/none")?.route).toBe("(no route)");
    expect(byPath.get("/")).toMatchObject({ route: "/", status: 200 });
    expect(
      records.every((r) => !String((r.data as { route?: string }).route).startsWith("undefined")),
    ).toBe(true);
  });
});
