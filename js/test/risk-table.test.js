import { describe, it, expect } from "vitest";
import { riskTable } from "../src/risk-table.js";
import { figuresTable } from "../src/card-dom.js";

const row = (score, over = {}) => ({
  score, predicted: 0.2, train_count: 10, train_events: 2, train_rate: 0.2, train_lower: 0.057, train_upper: 0.51, ...over,
});

describe("the risk table", () => {
  it("is absent for a decision card", () => {
    expect(riskTable(null)).toBeNull();
    expect(riskTable([])).toBeNull();
  });
  it("shows score, predicted risk and the observed rate with its interval and counts", () => {
    const node = riskTable([row(-1), row(3, { predicted: 0.655 })]);
    const heads = [...node.querySelectorAll("thead th")].map((h) => h.textContent);
    expect(heads).toEqual(["total score", "predicted risk", "observed, train (95 % CI)"]);
    // the interval's words are kept on one line (a narrow column wraps before them, never inside)
    const ci = node.querySelector("thead .sw-risk-ci-head");
    expect(ci.textContent).toBe("(95 % CI)");
    const cells = [...node.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(cells[0]).toEqual(["\u22121", "20.0 %", "20.0 %5.7 – 51.0 %2/10"]);
    expect(cells[1][1]).toBe("65.5 %");
  });
  it("adds the held-out column, saying so where a score has no held-out rows", () => {
    const node = riskTable([
      row(0, { val_count: 4, val_events: 1, val_rate: 0.25, val_lower: 0.046, val_upper: 0.7 }),
      row(5, { val_count: null, val_events: null, val_rate: null, val_lower: null, val_upper: null }),
    ]);
    expect(node.querySelectorAll("thead th").length).toBe(4);
    const last = [...node.querySelectorAll("tbody tr")].map((tr) => tr.lastElementChild.textContent);
    expect(last).toEqual(["25.0 %4.6 – 70.0 %1/4", "no rows"]);
  });
});

describe("the figures of a risk card", () => {
  it("are log-loss and AUC, train and held-out", () => {
    const node = figuresTable([{ set: "train", log_loss: 0.28603, auc: 0.93978, n: 426 },
      { set: "validation", log_loss: 0.3538, auc: 0.9017, n: 143 }], 3);
    const heads = [...node.querySelectorAll("thead th")].map((h) => h.textContent);
    expect(heads).toEqual(["", "log-loss", "AUC", "rows"]);
    const rows = [...node.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(rows).toEqual([["train", "0.2860", "0.940", "426"], ["held-out", "0.3538", "0.902", "143"]]);
  });
});
