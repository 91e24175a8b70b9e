import { describe, it, expect, beforeEach } from "vitest";
import * as vega from "vega";
import { compile } from "vega-lite";
import view from "../src/chart.js";
import { changedNames, withDatasets, updateView, clickedKey, serial } from "../src/chart-core.js";
import { fakeModel, tick } from "./fake-model.js";

// The structure Python sends (named data, no values) and the rows, as charts.split_datasets makes them.
const spec = {
  width: 200, height: 150,
  layer: [
    { data: { name: "frontier" }, mark: { type: "point", filled: true }, encoding: {
      x: { field: "fpr", type: "quantitative", scale: { domain: [0, 1] } },
      y: { field: "tpr", type: "quantitative", scale: { domain: [0, 1] } } } },
    { data: { name: "card" }, mark: { type: "point", shape: "diamond" }, encoding: {
      x: { field: "fpr", type: "quantitative" }, y: { field: "tpr", type: "quantitative" } } },
  ],
};
const rows = (n) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, fpr: i / 10, tpr: i / 9 }));

async function until(check, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) { if (Date.now() > end) throw new Error("timed out"); await tick(10); }
}

describe("chart-core", () => {
  it("finds the data sets whose rows changed", () => {
    expect(changedNames({ a: [1], b: [2] }, { a: [1], b: [3], c: [] })).toEqual(["b"]);
    expect(changedNames({}, { a: [] })).toEqual([]);
  });
  it("puts the rows beside the structure without touching it", () => {
    const full = withDatasets(spec, { frontier: rows(2) });
    expect(full.datasets.frontier).toHaveLength(2);
    expect(spec.datasets).toBeUndefined();
  });
  it("reads the key of a clicked point only", () => {
    expect(clickedKey({ datum: { key: "abc" } })).toBe("abc");
    expect(clickedKey({ datum: { fpr: 1 } })).toBeNull();
    expect(clickedKey(null)).toBeNull();
  });
  it("runs tasks one after another, even after a failure", async () => {
    const order = [];
    const q = serial();
    q(async () => { await tick(20); order.push(1); });
    q(async () => { throw new Error("boom"); });
    await q(async () => { order.push(3); });
    expect(order).toEqual([1, 3]);
  });
  it("swaps rows of a live vega view in place", async () => {
    const div = document.createElement("div");
    const v = new vega.View(vega.parse(compile(withDatasets(spec, { frontier: rows(2), card: [] })).spec), { renderer: "svg", container: div });
    await v.runAsync();
    const changed = await updateView(v, vega, { frontier: rows(2), card: [] }, { frontier: rows(5), card: [{ fpr: 0.1, tpr: 0.5 }] });
    expect(changed.sort()).toEqual(["card", "frontier"]);
    expect(v.data("frontier")).toHaveLength(5);
    expect(v.data("card")).toHaveLength(1);
    expect(div.querySelectorAll("path.mark-symbol, .mark-symbol path").length).toBeGreaterThan(0);
    v.finalize();
  });
});

describe("the chart view", () => {
  beforeEach(() => { document.body.innerHTML = ""; });

  it("renders SVG marks from the bundled Vega, then updates the data without re-embedding", async () => {
    const host = document.createElement("div");
    document.body.append(host);
    const model = fakeModel({ spec, datasets: { frontier: rows(3), card: [] } });
    const cleanup = view.render({ model, el: host });
    const box = host.querySelector(".sw-chart");
    await until(() => box.dataset.renders === "1");
    const svg = box.querySelector("svg");
    expect(svg).not.toBeNull();
    const marks = () => box.querySelectorAll("g.mark-symbol path").length;
    expect(marks()).toBe(3);
    model.push("datasets", { frontier: rows(6), card: [{ fpr: 0.2, tpr: 0.4 }] });
    await until(() => box.dataset.updates === "1");
    expect(box.dataset.renders).toBe("1"); // same view: no flicker from a re-embed
    expect(box.querySelector("svg")).toBe(svg);
    expect(marks()).toBe(7);
    model.push("spec", { ...spec, width: 250 });
    await until(() => box.dataset.renders === "2");
    cleanup();
  });

  it("draws a whole Altair chart (data inline, no named data sets) and says why when it cannot", async () => {
    const host = document.createElement("div");
    document.body.append(host);
    const altair = { $schema: "https://vega.github.io/schema/vega-lite/v6.json", datasets: { "data-1": rows(4) },
      data: { name: "data-1" }, mark: { type: "point" },
      encoding: { x: { field: "fpr", type: "quantitative" }, y: { field: "tpr", type: "quantitative" } } };
    const model = fakeModel({ spec: altair, datasets: {} });
    view.render({ model, el: host });
    const box = host.querySelector(".sw-chart");
    await until(() => box.dataset.renders === "1");
    expect(box.querySelectorAll("g.mark-symbol path").length).toBe(4);
    model.push("spec", { mark: "no such mark", encoding: {} });
    await until(() => box.querySelector(".sw-chart-error") !== null);
    expect(box.querySelector(".sw-chart-error").textContent).toMatch(/^this chart could not be drawn: /);
  });

  it("sends the key of a clicked frontier point", async () => {
    const host = document.createElement("div");
    document.body.append(host);
    const model = fakeModel({ spec, datasets: { frontier: rows(2), card: [] } });
    view.render({ model, el: host });
    const box = host.querySelector(".sw-chart");
    await until(() => box.dataset.renders === "1");
    const point = box.querySelector("g.mark-symbol path");
    point.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    await until(() => model.sent.length === 1);
    expect(model.sent.at(-1).payload.key).toMatch(/^k[01]$/);
  });
});
