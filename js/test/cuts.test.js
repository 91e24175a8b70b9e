import { describe, it, expect, beforeEach } from "vitest";
import cutsView from "../src/cuts.js";
import cardView from "../src/card.js";
import { snap, scaleOf, numberText, HIST } from "../src/cuts-dom.js";
import { fakeModel } from "./fake-model.js";

const age = (over = {}) => ({
  name: "age", min: 30, max: 84, integer: true, rows: 160, missing: 0, rate: 0.4, cuts: [50, 60], labels: ["50", "60"],
  use: "auto", sign: "free", monotone: "none", error: null,
  bins: [{ lo: 30, hi: 45, rows: 50, events: 10 }, { lo: 45, hi: 60, rows: 60, events: 20 }, { lo: 60, hi: 85, rows: 50, events: 40 }],
  ...over,
});

describe("the cut-point panel", () => {
  let host;
  let model;
  beforeEach(() => {
    document.body.innerHTML = "";
    host = document.createElement("div");
    document.body.append(host);
    model = fakeModel({ variables: [age(), age({ name: "<b>bmi</b>", integer: false, min: 18.2, max: 41.5, cuts: [25], labels: ["25"], missing: 16 })] });
    cutsView.render({ model, el: host });
  });

  it("draws each variable's histogram with its events and one marker per cut, names as text", () => {
    const blocks = host.querySelectorAll(".sw-cutvar");
    expect(blocks.length).toBe(2);
    expect(host.querySelector("b b")).toBeNull(); // a name from the data is never parsed as HTML
    expect(blocks[1].querySelector(".sw-cut-name").textContent).toBe("<b>bmi</b>");
    expect(blocks[0].querySelectorAll(".sw-cut-bin").length).toBe(3);
    const rows = [...blocks[0].querySelectorAll(".sw-cut-rows")].map((r) => Number(r.getAttribute("height")));
    const events = [...blocks[0].querySelectorAll(".sw-cut-events")].map((r) => Number(r.getAttribute("height")));
    expect(rows[1]).toBeGreaterThan(rows[0]); // 60 rows against 50
    expect(events[2] / rows[2]).toBeCloseTo(40 / 50, 5); // the dark part is the bin's share of events
    expect([...blocks[0].querySelectorAll(".sw-cut-marker")].map((m) => m.dataset.cut)).toEqual(["50", "60"]);
    expect(blocks[1].querySelector(".sw-cut-range").textContent).toContain("16 missing");
    expect(blocks[0].querySelector(".sw-cut-bin title").textContent).toBe("30 to 45: 50 rows, 10 events (20.0 %)");
  });

  it("sends what was typed to add or move a cut, and a remove", () => {
    const add = host.querySelector(".sw-cutvar .sw-cut-add");
    add.value = "65";
    add.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.at(-1)).toMatchObject({ type: "add", payload: { variable: "age", value: "65" } });
    const box = host.querySelector(".sw-cut-value[data-cut='60']");
    box.value = "62";
    box.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ type: "move", payload: { variable: "age", old: 60, value: "62" } });
    host.querySelector(".sw-cut-remove[data-cut='50']").click();
    expect(model.sent.at(-1)).toMatchObject({ type: "remove", payload: { variable: "age", old: 50 } });
    expect(model.sent.length).toBe(3);
  });

  it("says a refused edit in place, with what was typed still in its box", () => {
    model.push("variables", [age({ error: { text: "\u201cabc\u201d is not a number", typed: "abc", op: "add", old: null } })]);
    const add = host.querySelector(".sw-cut-add");
    expect(add.value).toBe("abc");
    expect(add.classList.contains("sw-invalid")).toBe(true);
    expect(host.querySelector(".sw-cut-error").textContent).toContain("is not a number");
    expect(host.querySelector(".sw-cut-error").textContent).toContain("the cuts stay as they were");
    model.push("variables", [age({ error: { text: "'age' already has a cut at 50", typed: "50", op: "move", old: 60 } })]);
    const moved = host.querySelector(".sw-cut-value[data-cut='60']");
    expect(moved.value).toBe("50");
    expect(moved.classList.contains("sw-invalid")).toBe(true);
    expect([...host.querySelectorAll(".sw-cut-marker")].map((m) => m.dataset.cut)).toEqual(["50", "60"]);
  });

  it("sends a use or sign by variable", () => {
    const sign = host.querySelector("select.sw-cut-sign");
    sign.value = "+";
    sign.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ type: "sign", payload: { variable: "age", value: "+" } });
  });

  it("shows and sends the monotone choice of a numeric variable", () => {
    const monotone = host.querySelector("select.sw-cut-monotone");
    expect(monotone.value).toBe("none");
    expect([...monotone.options].map((o) => o.value)).toEqual(["none", "increasing", "decreasing"]);
    monotone.value = "decreasing";
    monotone.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ type: "monotone", payload: { variable: "age", value: "decreasing" } });
  });
});

describe("a variable of levels", () => {
  it("draws each level's rows and events as a bar, and sends its use", () => {
    document.body.innerHTML = "";
    const host = document.createElement("div");
    document.body.append(host);
    const sex = { name: "sex", kind: "levels", rows: 160, missing: 0, rate: 0.4, use: "auto", error: null, more: 2,
      levels: [{ label: "F", rows: 100, events: 25 }, { label: "<i>M</i>", rows: 60, events: 39 }] };
    const model = fakeModel({ variables: [age(), sex] });
    cutsView.render({ model, el: host });
    const block = host.querySelector(".sw-cutvar[data-variable='sex']");
    expect(block.querySelector(".sw-cut-hist")).toBeNull();
    expect(block.querySelector("i")).toBeNull();
    expect([...block.querySelectorAll(".sw-level-name")].map((e) => e.textContent)).toEqual(["F", "<i>M</i>"]);
    const widths = [...block.querySelectorAll(".sw-level-rows")].map((e) => e.style.width);
    expect(widths).toEqual(["100%", "60%"]);
    expect(block.querySelectorAll(".sw-level-events")[1].style.width).toBe("65%");
    expect(block.querySelector(".sw-level-more").textContent).toBe("and 2 more levels");
    expect(block.querySelector("select.sw-cut-sign")).toBeNull(); // levels have no order: no sign
    expect(block.querySelector("select.sw-cut-monotone")).toBeNull(); // nor a monotone choice
    const use = block.querySelector("select.sw-cut-use");
    use.value = "exclude";
    use.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ type: "use", payload: { variable: "sex", value: "exclude" } });
  });
});

describe("the group column", () => {
  it("says at the column that it is the group, kept off the card, and how to change that; its use is fixed", () => {
    document.body.innerHTML = "";
    const host = document.createElement("div");
    document.body.append(host);
    const note = "kept off the card while the card is measured in its groups; to put it on the card, set \u201cgroups\u201d in the controls to another column or to \u201cno groups\u201d";
    const sex = { name: "sex", kind: "levels", rows: 160, missing: 0, rate: 0.4, use: "exclude", error: null, more: 0,
      group: note, levels: [{ label: "F", rows: 100, events: 25 }, { label: "M", rows: 60, events: 39 }] };
    const model = fakeModel({ variables: [age({ use: "exclude", group: "<i>x</i> " + note }), sex, age({ name: "bmi" })] });
    cutsView.render({ model, el: host });
    for (const name of ["sex", "age"]) {
      const block = host.querySelector(`.sw-cutvar[data-variable='${name}']`);
      const said = block.querySelector(".sw-cut-group");
      expect(said.textContent).toContain("group column: ");
      expect(said.textContent).toContain("kept off the card");
      expect(said.textContent).toContain("\u201cno groups\u201d");
      const use = block.querySelector("select.sw-cut-use");
      expect(use.value).toBe("exclude");
      expect(use.disabled).toBe(true);
    }
    expect(host.querySelector(".sw-cut-group i")).toBeNull(); // words, never parsed as HTML
    const bmi = host.querySelector(".sw-cutvar[data-variable='bmi']");
    expect(bmi.querySelector(".sw-cut-group")).toBeNull(); // only the group column says it
    expect(bmi.querySelector("select.sw-cut-use").disabled).toBe(false);
  });
});

describe("dragging a cut", () => {
  it("lands on a round value inside the variable's range", () => {
    expect(snap(61.3, age())).toBe(61);
    expect(snap(27.349, { min: 18.2, max: 41.5, integer: false })).toBe(27.5); // steps of 0.5 on a range of 23
    const { x, value } = scaleOf(age());
    expect(value(x(57))).toBeCloseTo(57, 10);
    expect(x(30)).toBe(HIST.pad);
    expect(numberText(0.1 + 0.2)).toBe("0.3");
  });

  it("sends a move when a marker is dropped elsewhere", () => {
    document.body.innerHTML = "";
    const host = document.createElement("div");
    document.body.append(host);
    const model = fakeModel({ variables: [age()] });
    cutsView.render({ model, el: host });
    const chart = host.querySelector("svg.sw-cut-hist");
    chart.getBoundingClientRect = () => ({ left: 0, top: 0, width: HIST.width, height: HIST.height });
    const marker = host.querySelector(".sw-cut-marker[data-cut='60']");
    const { x } = scaleOf(age());
    marker.dispatchEvent(new MouseEvent("pointerdown", { clientX: x(60) }));
    marker.dispatchEvent(new MouseEvent("pointermove", { clientX: x(66.2) }));
    expect(marker.querySelector(".sw-cut-label").textContent).toBe("66");
    marker.dispatchEvent(new MouseEvent("pointerup", { clientX: x(66.2) }));
    expect(model.sent.at(-1)).toMatchObject({ type: "move", payload: { variable: "age", old: 60, value: "66" } });
    host.querySelector(".sw-cut-marker[data-cut='50']").dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft" }));
    expect(model.sent.at(-1)).toMatchObject({ type: "move", payload: { variable: "age", old: 50, value: "49" } });
  });
});

describe("the card by variable", () => {
  const card = {
    id: 1, positive: "disease", threshold: 2, editable: true, is_previous: false, status: "optimal",
    rows: [{ name: "age >= 50", points: 1, binary: true, locked: null, edited: false },
      { name: "age >= 60", points: 2, binary: true, locked: null, edited: false },
      { name: "bmi missing", points: 1, binary: true, locked: null, edited: false }],
    variables: [
      { variable: "age", locked: false, bands: [
        { label: "< 50", points: 0, editable: false, rules: [], kind: "band", edited: false },
        { label: "50\u201359", points: 1, editable: true, rules: ["age >= 50"], kind: "band", edited: false },
        { label: "\u2265 60", points: 3, editable: true, rules: ["age >= 60"], kind: "band", edited: false }] },
      { variable: "bmi", locked: true, bands: [{ label: "missing", points: 1, editable: true, rules: ["bmi missing"], kind: "missing", edited: true }] }],
    metrics_text: "train: error 10.0 %", cost_text: null, spec_text: "",
  };

  it("prints each variable's bands as clinical scores do, the rules folded below", () => {
    document.body.innerHTML = "";
    const host = document.createElement("div");
    document.body.append(host);
    const model = fakeModel({ card, status: { state: "optimal", text: "optimal" } });
    cardView.render({ model, el: host });
    const rows = [...host.querySelectorAll("tr.sw-var-row")];
    expect(rows.map((r) => r.dataset.variable)).toEqual(["age", "bmi"]);
    expect(rows[0].querySelector(".sw-bands").textContent.replace(/\s+/g, " ")).toBe("< 50: 0 \u00b7 50\u201359: \u00b7 \u2265 60: ");
    expect([...rows[0].querySelectorAll("input.sw-band-points")].map((i) => i.value)).toEqual(["1", "3"]);
    expect(rows[0].querySelector(".sw-band-ref").textContent).toBe("0"); // the reference band is not a box
    expect(rows[1].querySelector(".sw-lock").classList.contains("sw-locked")).toBe(true);
    expect(rows[1].querySelector(".sw-band").classList.contains("sw-edited-band")).toBe(true);
    expect(host.querySelector("table.sw-table:not(.sw-vars)").classList.contains("sw-rules-folded")).toBe(true);
    host.querySelector(".sw-rules-toggle").click();
    expect(host.querySelector("table.sw-table:not(.sw-vars)").classList.contains("sw-rules-folded")).toBe(false);
  });

  it("sends a band's new points with its label, and a variable's lock", () => {
    document.body.innerHTML = "";
    const host = document.createElement("div");
    document.body.append(host);
    const model = fakeModel({ card, status: { state: "optimal", text: "optimal" } });
    cardView.render({ model, el: host });
    const box = host.querySelector("input.sw-band-points[data-feature='band:age:2']");
    box.value = "4";
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.at(-1)).toMatchObject({ type: "band", payload: { variable: "age", band: 2, label: "\u2265 60", value: 4 } });
    const bad = host.querySelector("input.sw-band-points[data-feature='band:age:1']");
    bad.value = "1.5";
    bad.dispatchEvent(new Event("change"));
    expect(bad.classList.contains("sw-invalid")).toBe(true);
    expect(model.sent.length).toBe(1);
    host.querySelector("tr.sw-var-row[data-variable='age'] .sw-lock").click();
    expect(model.sent.at(-1)).toMatchObject({ type: "lock_variable", payload: { variable: "age" } });
  });
});
