import { describe, it, expect, beforeEach } from "vitest";
import view from "../src/groups.js";
import { fakeModel } from "./fake-model.js";

const figures = (tpr) => ({ n: "194", TPR: tpr, FPR: "14.0 %", error: "13.9 %" });
const panel = (over = {}) => ({
  column: "<i>sex</i>", status: "TPR gap between groups 4.1 % \u2264 5 % · proven best under these caps", level: "info",
  held_out: true, notice: "",
  rows: [
    { group: "<b>F</b>", color: "#0072B2", shape: "square", train: figures("86.3 %"), held_out: figures("87.0 %") },
    { group: "M", color: "#D55E00", shape: "triangle-up", train: figures("90.4 %"), held_out: null },
  ],
  ...over,
});

describe("the per-group table", () => {
  let host;
  let model;
  beforeEach(() => {
    host = document.createElement("div");
    model = fakeModel({ view: panel() });
    view.render({ model, el: host });
  });

  it("shows the status in words, names as text, train and held-out figures", () => {
    expect(host.querySelector(".sw-groups-status").textContent)
      .toBe("TPR gap between groups 4.1 % \u2264 5 % · proven best under these caps");
    expect(host.querySelector("b")).toBeNull(); // a group or column name is never parsed as HTML
    expect(host.querySelector("i")).toBeNull();
    const rows = host.querySelectorAll("tbody tr");
    expect(rows.length).toBe(2);
    expect(rows[0].querySelector(".sw-group-name").textContent).toBe("<b>F</b>");
    expect([...rows[0].querySelectorAll("td .sw-group-train")].map((e) => e.textContent))
      .toEqual(["194", "86.3 %", "14.0 %", "13.9 %"]);
    expect([...rows[0].querySelectorAll("td .sw-group-held")].map((e) => e.textContent))
      .toEqual(["194", "87.0 %", "14.0 %", "13.9 %"]);
    expect([...rows[1].querySelectorAll("td .sw-group-held")].map((e) => e.textContent)).toEqual(["–", "–", "–", "–"]);
    expect(host.querySelector("caption").textContent).toBe("train above held-out");
  });

  it("draws each group's mark in its colour and shape, as on the ROC plane", () => {
    const marks = host.querySelectorAll("tbody svg.sw-group-mark path");
    expect([...marks].map((p) => p.getAttribute("fill"))).toEqual(["#0072B2", "#D55E00"]);
    expect(marks[0].getAttribute("d")).not.toBe(marks[1].getAttribute("d"));
  });

  it("redraws when Python sends a new view, and says a refusal in place", () => {
    model.push("view", panel({ held_out: false, notice: "pick a group column first", status: "TPR gap between groups 1.0 %" }));
    expect(host.querySelector(".sw-groups-status").textContent).toBe("TPR gap between groups 1.0 %");
    expect(host.querySelector(".sw-groups-notice").textContent).toBe("pick a group column first");
    expect(host.querySelector(".sw-groups-notice").getAttribute("role")).toBe("alert");
    expect(host.querySelectorAll("td .sw-group-held").length).toBe(0);
    expect(host.querySelector("caption")).toBeNull();
    expect([...host.querySelectorAll("thead th")].map((e) => e.textContent)).toEqual(["<i>sex</i>", "n", "TPR", "FPR", "error"]);
  });

  it("without a column shows only the hint", () => {
    model.push("view", { column: null, hint: "pick a group column to see the card in each group" });
    expect(host.querySelector("table")).toBeNull();
    expect(host.querySelector(".sw-groups-hint").textContent).toBe("pick a group column to see the card in each group");
  });
});
