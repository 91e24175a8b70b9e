import { describe, it, expect, beforeEach } from "vitest";
import view from "../src/card.js";
import { parsePoints, cardTable, statusLine } from "../src/card-dom.js";
import { fakeModel } from "./fake-model.js";

const card = (over = {}) => ({
  id: 1, positive: "malignant", threshold: 3, editable: true, is_previous: false, status: "optimal",
  rows: [
    { name: "BareNuclei", points: 4, binary: false, locked: null, edited: false },
    { name: "Mitoses", points: -2, binary: true, locked: 3, edited: false },
    { name: "Unused", points: 0, binary: true, locked: null, edited: false },
  ],
  metrics_text: "train: error 3.0 % · TPR 95.0 % · FPR 2.0 % · 2 features",
  cost_text: null, spec_text: "solved for: max FPR 20 %", ...over,
});

describe("parsePoints", () => {
  it("accepts whole numbers, with a sign or a typographic minus", () => {
    expect(parsePoints("4")).toBe(4);
    expect(parsePoints(" -3 ")).toBe(-3);
    expect(parsePoints("\u22125")).toBe(-5);
    expect(parsePoints("+2")).toBe(2);
  });
  it("refuses anything else", () => {
    for (const bad of ["", "1.5", "abc", "2e3", "--1", "99999999999999999999"]) expect(parsePoints(bad)).toBeNull();
  });
});

describe("the point table", () => {
  let host;
  beforeEach(() => { document.body.innerHTML = ""; host = document.createElement("div"); document.body.append(host); });

  it("shows exactly the numbers it is sent", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "optimal · gap 0 % · 0.20 s" }, request: {} });
    view.render({ model, el: host });
    const pts = [...host.querySelectorAll("input.sw-points")].map((i) => [i.dataset.feature, i.value]);
    expect(pts).toEqual([["BareNuclei", "4"], ["Mitoses", "-2"], ["Unused", "0"]]);
    expect(host.querySelector(".sw-threshold").value).toBe("3");
    expect(host.querySelector(".sw-rule").textContent).toContain("PREDICT MALIGNANT IF SCORE \u2265");
    expect(host.querySelector(".sw-metrics").textContent).toBe(card().metrics_text);
    expect(host.querySelector(".sw-status").dataset.state).toBe("optimal");
    expect(host.querySelector(".sw-status-text").textContent).toBe("optimal · gap 0 % · 0.20 s");
    expect(host.querySelector("tr[data-feature=BareNuclei] .sw-name").textContent).toBe("× BareNuclei");
    expect(host.querySelector("tr[data-feature=Unused]").className).toContain("sw-unused");
    expect(host.querySelector("tr[data-feature=Mitoses] .sw-lock").className).toContain("sw-locked");
  });

  it("sends an edit request when a cell changes, and nothing for a non-number", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" }, request: {} });
    view.render({ model, el: host });
    const input = host.querySelector("input[data-feature=BareNuclei]");
    input.value = "6";
    input.dispatchEvent(new Event("change"));
    expect(model.saved).toHaveLength(1);
    expect(model.get("request")).toMatchObject({ op: "edit", feature: "BareNuclei", value: 6 });
    input.value = "six";
    input.dispatchEvent(new Event("change"));
    expect(model.saved).toHaveLength(1);
    expect(input.value).toBe("4");
    expect(input.classList.contains("sw-invalid")).toBe(true);
  });

  it("commits a cell on Enter and keeps its keys from the notebook", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" }, request: {} });
    view.render({ model, el: host });
    let leaked = 0;
    host.addEventListener("keydown", () => { leaked += 1; });
    const input = host.querySelector("input[data-feature=Mitoses]");
    input.value = "-3";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(model.get("request")).toMatchObject({ op: "edit", feature: "Mitoses", value: -3 });
    expect(leaked).toBe(0);
  });

  it("writes a card made under the paper's rule with a strict '>'", () => {
    view.render({ model: fakeModel({ card: card({ rule: ">" }), status: {}, request: {} }), el: host });
    expect(host.querySelector(".sw-rule").textContent).toContain("PREDICT MALIGNANT IF SCORE >");
  });

  it("sends threshold, lock and unlock requests", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" }, request: {} });
    view.render({ model, el: host });
    const thr = host.querySelector(".sw-threshold");
    thr.value = "5";
    thr.dispatchEvent(new Event("change"));
    expect(model.get("request")).toMatchObject({ op: "threshold", value: 5 });
    host.querySelector("tr[data-feature=BareNuclei] .sw-lock").click();
    expect(model.get("request")).toMatchObject({ op: "lock", feature: "BareNuclei" });
    host.querySelector("tr[data-feature=Mitoses] .sw-lock").click();
    expect(model.get("request")).toMatchObject({ op: "unlock", feature: "Mitoses" });
    const nonces = model.saved.map((s) => s.request.nonce);
    expect(new Set(nonces).size).toBe(3);
  });

  it("updates in place when Python sends a new card, keeping the focused cell", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" }, request: {} });
    view.render({ model, el: host });
    host.querySelector("input[data-feature=Mitoses]").focus();
    model.push("card", card({ id: 2, status: "edited", cost_text: "edit vs optimum: error +1.0 pt",
      rows: card().rows.map((r) => (r.name === "BareNuclei" ? { ...r, points: 7, edited: true } : r)) }));
    expect(host.querySelector("input[data-feature=BareNuclei]").value).toBe("7");
    expect(host.querySelector("tr[data-feature=BareNuclei]").className).toContain("sw-edited-row");
    expect(host.querySelector(".sw-cost").textContent).toBe("edit vs optimum: error +1.0 pt");
    expect(document.activeElement.dataset.feature).toBe("Mitoses");
    expect(host.querySelector(".sw-card").dataset.cardId).toBe("2");
  });

  it("disables editing while solving and dims a previous card", () => {
    const model = fakeModel({ card: card({ editable: false, is_previous: true }), status: { state: "solving", text: "solving…", started: Date.now() / 1000 }, request: {} });
    view.render({ model, el: host });
    expect([...host.querySelectorAll("input.sw-points")].every((i) => i.disabled)).toBe(true);
    expect(host.querySelector(".sw-card").classList.contains("sw-previous")).toBe(true);
    expect(host.querySelector(".sw-status").dataset.state).toBe("solving");
    expect(host.querySelector(".sw-clock")).not.toBeNull();
  });

  it("shows the infeasible status and no table when there is no card", () => {
    const model = fakeModel({ card: null, status: { state: "infeasible", text: "infeasible: these constraints clash: max_fpr=0; min_tpr=1" }, request: {} });
    const cleanup = view.render({ model, el: host });
    expect(host.querySelector("table")).toBeNull();
    expect(host.querySelector(".sw-status").className).toContain("sw-bad");
    expect(host.textContent).toContain("max_fpr=0; min_tpr=1");
    cleanup();
    expect(model.handlers.get("change:card")).toHaveLength(0);
  });

  it("escapes feature names (they are text, never markup)", () => {
    const evil = card({ rows: [{ name: "<img src=x onerror=alert(1)>", points: 1, binary: true, locked: null, edited: false }] });
    const node = cardTable(evil, { state: "optimal" }, () => {});
    expect(node.querySelector("img")).toBeNull();
    expect(node.querySelector(".sw-name").textContent).toBe("<img src=x onerror=alert(1)>");
    expect(statusLine({ state: "error", text: "<b>x</b>" }).querySelector("b")).toBeNull();
  });
});
