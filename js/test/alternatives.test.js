import { describe, it, expect, beforeEach } from "vitest";
import view from "../src/alternatives.js";
import { fakeModel } from "./fake-model.js";

const row = (rank, over = {}) => ({
  rank, features: [{ name: "<b>age</b> >= 60", points: 2 }, { name: "bmi", points: -1 }], size: 2,
  train: ["error 13.2 %", "TPR 88.2 %", "FPR 14.0 %"], held_out: ["error 15.0 %", "TPR 86.2 %", "FPR 17.1 %"],
  difference: rank === 1 ? "shown now" : "error +0.4 pt", current: rank === 1, how: "proven best",
  details: "objective 0.13 · optimal · 0.1 s", ...over,
});

describe("the alternatives list", () => {
  let host;
  let model;
  beforeEach(() => {
    host = document.createElement("div");
    model = fakeModel({ rows: [row(1), row(2)], state: { phase: "done", text: "2 cards · complete" } });
    view.render({ model, el: host });
  });

  it("shows names as text, points with a sign, figures and the difference", () => {
    const items = host.querySelectorAll("li.sw-alt");
    expect(items.length).toBe(2);
    expect(host.querySelector("b")).toBeNull(); // a name from the data is never parsed as HTML
    expect(items[1].querySelector(".sw-alt-fname").textContent).toBe("<b>age</b> >= 60");
    expect([...items[1].querySelectorAll(".sw-alt-pts")].map((e) => e.textContent)).toEqual(["+2", "\u22121"]);
    expect(items[1].querySelector(".sw-alt-held").textContent).toBe("held-out: error 15.0 % · TPR 86.2 % · FPR 17.1 %");
    expect([...items[1].querySelectorAll(".sw-alt-train .sw-alt-fig")].map((e) => e.textContent))
      .toEqual(["error 13.2 %", "TPR 88.2 %", "FPR 14.0 %"]);
    expect(items[1].querySelector(".sw-alt-diff").textContent).toBe("error +0.4 pt");
    expect(items[0].classList.contains("sw-alt-current")).toBe(true);
    expect(host.querySelector(".sw-alts-state").textContent).toBe("2 cards · complete");
  });

  it("sends the rank of a clicked row, and nothing for the card already shown", () => {
    const items = host.querySelectorAll("li.sw-alt");
    items[0].click();
    expect(model.sent.length).toBe(0);
    items[1].dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.length).toBe(1);
    expect(model.sent.at(-1)).toMatchObject({ type: "load", payload: { rank: 2 } });
  });

  it("redraws when rows arrive, with a spinner while the search runs", () => {
    model.push("state", { phase: "running", text: "searching…", started: Date.now() / 1000 });
    expect(host.querySelector(".sw-alts-spinner")).not.toBeNull();
    model.push("rows", [row(1), row(2), row(3)]);
    expect(host.querySelectorAll("li.sw-alt").length).toBe(3);
    model.push("state", { phase: "done", text: "3 cards", notice: "loaded alternative 2: <i>x</i>", level: "warning" });
    const notice = host.querySelector(".sw-alts-notice");
    expect(notice.textContent).toBe("loaded alternative 2: <i>x</i>");
    expect(notice.dataset.level).toBe("warning");
  });

  it("reads a raw table's card by variable, as the card does", () => {
    const raw = row(2, { variables: [{ name: "age", text: "< 23: 0 · 23–25: 7 · ≥ 26: −2" }, { name: "<i>race</i>", text: "black: 2" }] });
    model.push("rows", [row(1), raw]);
    const item = host.querySelectorAll("li.sw-alt")[1];
    expect([...item.querySelectorAll(".sw-alt-variable")].map((e) => e.textContent))
      .toEqual(["age< 23: 0 · 23–25: 7 · ≥ 26: −2", "<i>race</i>black: 2"]);
    expect(item.querySelector(".sw-alt-pts")).toBeNull(); // not rule by rule
    expect(item.querySelector("i")).toBeNull();
  });
});
