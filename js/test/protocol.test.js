import { describe, it, expect, beforeEach } from "vitest";
import { connect, REQUESTS, STATUS_FIELDS } from "../src/protocol.js";
import cardView, { SHOWN_STATUS } from "../src/card.js";
import { statusLine } from "../src/card-dom.js";
import { fakeModel, tick } from "./fake-model.js";

describe("send()", () => {
  it("resolves on the answer that echoes its request's id, not on another's", async () => {
    const model = fakeModel({});
    const send = connect(model, "card");
    let answered = null;
    send("lock", { feature: "age >= 60" }).then((a) => { answered = a; });
    const [request] = model.sent;
    expect(request).toMatchObject({ type: "lock", payload: { feature: "age >= 60" } });
    model.answer({ id: `${request.id}-other`, ok: true, error: null });
    await tick();
    expect(answered).toBeNull();
    model.answer({ id: request.id, ok: false, error: "unknown feature 'age >= 60'" });
    await tick();
    expect(answered).toEqual({ id: request.id, ok: false, error: "unknown feature 'age >= 60'" });
    send.close();
    expect(model.handlers.get("msg:custom")).toHaveLength(0);
  });

  it("gives every request its own id", () => {
    const model = fakeModel({});
    const send = connect(model, "cuts");
    send("add", { variable: "age", value: "65" });
    send("remove", { variable: "age", old: 50 });
    expect(new Set(model.sent.map((m) => m.id)).size).toBe(2);
  });

  it("refuses a request or a field the protocol does not declare, sending nothing", async () => {
    const model = fakeModel({});
    const send = connect(model, "chart");
    await expect(send("paint", {})).rejects.toThrow('the chart view sends no request "paint"');
    await expect(send("load", { key: "k", colour: 1 })).rejects.toThrow('has no field "colour"');
    expect(model.sent).toHaveLength(0);
    expect(() => connect(model, "nowhere")).toThrow('declares no view "nowhere"');
  });

  it("knows the four views of the studio", () => {
    expect(Object.keys(REQUESTS).sort()).toEqual(["alternatives", "card", "chart", "cuts"]);
  });
});

// a status whose reads are recorded: the front end may read only the fields Python sends
function watched(status, read) {
  return new Proxy(status, { get: (target, key) => { if (typeof key === "string") read.add(key); return target[key]; } });
}

describe("the status fields", () => {
  let host;
  beforeEach(() => { host = document.createElement("div"); });

  it("are all the status line reads", () => {
    const read = new Set();
    statusLine(watched({ state: "solving", text: "solving…", level: "warn", proven: true, warning: "w", details: "d" }, read));
    expect([...read].filter((k) => !STATUS_FIELDS.includes(k))).toEqual([]);
    expect(SHOWN_STATUS.filter((k) => !STATUS_FIELDS.includes(k))).toEqual([]);
  });

  it("are all the card view reads, its clock included", async () => {
    const read = new Set();
    const status = watched({ state: "solving", text: "solving…", started: 1 }, read);
    const model = fakeModel({ card: null, status });
    const stop = cardView.render({ model, el: host });
    await new Promise((r) => setTimeout(r, 300)); // one tick of the clock
    stop();
    expect(read.has("started")).toBe(true);
    expect([...read].filter((k) => !STATUS_FIELDS.includes(k))).toEqual([]);
  });
});
