import { describe, it, expect, beforeEach } from "vitest";
import view from "../src/card.js";
import { parsePoints, cardTable, statusLine, detailLines } from "../src/card-dom.js";
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
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "optimal · gap 0 % · 0.20 s" } });
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
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    const input = host.querySelector("input[data-feature=BareNuclei]");
    input.value = "6";
    input.dispatchEvent(new Event("change"));
    expect(model.sent).toHaveLength(1);
    expect(model.sent.at(-1)).toMatchObject({ type: "edit", payload: { feature: "BareNuclei", value: 6 } });
    input.value = "six";
    input.dispatchEvent(new Event("change"));
    expect(model.sent).toHaveLength(1);
    // said in place: the typed text stays, marked, with a line under its row naming the value kept
    expect(input.value).toBe("six");
    expect(input.classList.contains("sw-invalid")).toBe(true);
    const note = host.querySelector("tr[data-feature=BareNuclei] + tr.sw-input-error-row");
    expect(note.textContent).toContain("\u201csix\u201d is not a whole number");
    expect(note.textContent).toContain("the card keeps 4");
    input.value = "7";
    input.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ type: "edit", payload: { feature: "BareNuclei", value: 7 } });
    expect(input.classList.contains("sw-invalid")).toBe(false);
    expect(host.querySelector(".sw-input-error-row")).toBeNull();
  });

  it("says a bad threshold in place and puts the value back on Escape", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    const thr = host.querySelector("input.sw-threshold");
    thr.value = "abc";
    thr.dispatchEvent(new Event("change"));
    expect(model.sent).toHaveLength(0);
    expect(host.querySelector(".sw-rule + .sw-input-error").textContent).toContain("\u201cabc\u201d");
    thr.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(thr.value).toBe(String(card().threshold));
    expect(host.querySelector(".sw-input-error")).toBeNull();
  });

  it("commits a cell on Enter and keeps its keys from the notebook", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    let leaked = 0;
    host.addEventListener("keydown", () => { leaked += 1; });
    const input = host.querySelector("input[data-feature=Mitoses]");
    input.value = "-3";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(model.sent.at(-1)).toMatchObject({ type: "edit", payload: { feature: "Mitoses", value: -3 } });
    expect(leaked).toBe(0);
  });

  it("writes a card made under the paper's rule with a strict '>'", () => {
    view.render({ model: fakeModel({ card: card({ rule: ">" }), status: {} }), el: host });
    expect(host.querySelector(".sw-rule").textContent).toContain("PREDICT MALIGNANT IF SCORE >");
  });

  it("sends threshold, lock and unlock requests", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    const thr = host.querySelector(".sw-threshold");
    thr.value = "5";
    thr.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ type: "threshold", payload: { value: 5 } });
    host.querySelector("tr[data-feature=BareNuclei] .sw-lock").click();
    expect(model.sent.at(-1)).toMatchObject({ type: "lock", payload: { feature: "BareNuclei" } });
    host.querySelector("tr[data-feature=Mitoses] .sw-lock").click();
    expect(model.sent.at(-1)).toMatchObject({ type: "unlock", payload: { feature: "Mitoses" } });
    const ids = model.sent.map((s) => s.id);
    expect(new Set(ids).size).toBe(3);
  });

  it("updates in place when Python sends a new card, keeping the focused cell", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" } });
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
    const model = fakeModel({ card: card({ editable: false, is_previous: true }), status: { state: "solving", text: "solving…", started: Date.now() / 1000 } });
    view.render({ model, el: host });
    expect([...host.querySelectorAll("input.sw-points")].every((i) => i.disabled)).toBe(true);
    expect(host.querySelector(".sw-card").classList.contains("sw-previous")).toBe(true);
    expect(host.querySelector(".sw-status").dataset.state).toBe("solving");
    expect(host.querySelector(".sw-clock")).not.toBeNull();
  });

  it("says the dimmed card is the previous one while the new settings solve", () => {
    const model = fakeModel({ card: card({ editable: false, is_previous: true }), status: { state: "solving", text: "solving\u2026", started: 1 } });
    view.render({ model, el: host });
    expect(host.querySelector(".sw-previous-note").textContent).toContain("solving for the new settings");
    model.push("card", card({ id: 2 }));
    expect(host.querySelector(".sw-previous-note")).toBeNull();
  });

  it("redraws the status line only when what it says changes", () => {
    const model = fakeModel({ card: card(), status: { state: "solving", text: "solving\u2026 \u00b7 TPR 90.0 %", started: 1, elapsed: 0.5 } });
    view.render({ model, el: host });
    const first = host.querySelector(".sw-status");
    model.push("status", { state: "solving", text: "solving\u2026 \u00b7 TPR 90.0 %", started: 1, elapsed: 0.9, bound: 3 });
    expect(host.querySelector(".sw-status")).toBe(first);
    model.push("status", { state: "solving", text: "solving\u2026 \u00b7 TPR 91.0 %", started: 1, elapsed: 1.2 });
    expect(host.querySelector(".sw-status")).not.toBe(first);
  });

  it("keeps the cells editable while a solve runs, when Python says so", () => {
    const model = fakeModel({ card: card({ status: "feasible" }), status: { state: "solving", text: "solving…" } });
    view.render({ model, el: host });
    expect([...host.querySelectorAll("input.sw-points")].some((i) => i.disabled)).toBe(false);
    const input = host.querySelector("input[data-feature=BareNuclei]");
    input.value = "5";
    input.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ type: "edit", payload: { feature: "BareNuclei", value: 5 } });
  });

  it("records one edit for Enter followed by the browser's own change on blur", () => {
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    const input = host.querySelector("input[data-feature=BareNuclei]");
    input.value = "6";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    input.dispatchEvent(new Event("change")); // what the browser fires when the cell loses focus
    expect(model.sent).toHaveLength(1);
    const thr = host.querySelector(".sw-threshold");
    thr.value = "4";
    thr.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    thr.dispatchEvent(new Event("change"));
    expect(model.sent).toHaveLength(2);
    input.value = "7"; // a different value is a new edit
    input.dispatchEvent(new Event("change"));
    expect(model.sent).toHaveLength(3);
  });

  it("keeps what the user is typing when a new incumbent arrives", () => {
    const model = fakeModel({ card: card({ status: "feasible" }), status: { state: "solving", text: "solving…" } });
    view.render({ model, el: host });
    const input = host.querySelector("input[data-feature=Mitoses]");
    input.focus();
    input.value = "-12";
    input.setSelectionRange(2, 2);
    model.push("card", card({ id: 2, status: "feasible",
      rows: card().rows.map((r) => (r.name === "BareNuclei" ? { ...r, points: 9 } : r)) }));
    const twin = host.querySelector("input[data-feature=Mitoses]");
    expect(twin).not.toBe(input);
    expect(twin.value).toBe("-12");
    expect(document.activeElement).toBe(twin);
    expect(twin.selectionStart).toBe(2);
    expect(host.querySelector("input[data-feature=BareNuclei]").value).toBe("9");
    // an untouched focused cell shows the new value
    host.querySelector("input[data-feature=BareNuclei]").focus();
    model.push("card", card({ id: 3, rows: card().rows.map((r) => (r.name === "BareNuclei" ? { ...r, points: 2 } : r)) }));
    expect(host.querySelector("input[data-feature=BareNuclei]").value).toBe("2");
  });

  it("puts train and held-out figures side by side when there are held-out rows", () => {
    const metrics = [{ set: "train", error: 0.12, tpr: 1, fpr: 0.191, n: 426 }, { set: "validation", error: 0.21, tpr: 0.981, fpr: 0.322, n: 143 }];
    const node = cardTable(card({ metrics }), { state: "optimal" }, () => {});
    const rows = [...node.querySelectorAll(".sw-metrics table.sw-figures tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(rows).toEqual([["train", "12.0 %", "100.0 %", "19.1 %", "426"], ["held-out", "21.0 %", "98.1 %", "32.2 %", "143"]]);
    expect(node.querySelector(".sw-metrics").textContent).toContain("2 features");
    // train only: the one-line summary
    const plain = cardTable(card({ metrics: [metrics[0]] }), { state: "optimal" }, () => {});
    expect(plain.querySelector(".sw-metrics").textContent).toBe(card().metrics_text);
  });

  it("shows the infeasible status and no table when there is no card", () => {
    const model = fakeModel({ card: null, status: { state: "infeasible", text: "infeasible: these constraints clash: max_fpr=0; min_tpr=1" } });
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

describe("the status line", () => {
  it("shows the text in the user's units, in amber for a warning, and the solver's figures in a details element", () => {
    const line = statusLine({ state: "time_limit",
      text: "TPR 95.3 % at FPR 19.6 % · best possible under this cap ≤ 97.1 % (proven)", level: "warn",
      warning: "no patient reaches the threshold", details: { objective: 9.481, bound: 0.0014, gap: "100.0 %" } });
    expect(line.querySelector(".sw-status-text").textContent).toBe("TPR 95.3 % at FPR 19.6 % · best possible under this cap ≤ 97.1 % (proven)");
    expect(line.classList.contains("sw-warn")).toBe(true);
    expect(line.dataset.level).toBe("warn");
    expect(line.querySelector(".sw-status-warning").textContent).toBe("no patient reaches the threshold");
    const details = line.querySelector("details.sw-status-details");
    expect(details.open).toBe(false);
    expect([...details.querySelectorAll("div")].map((d) => d.textContent)).toEqual(["objective: 9.481", "bound: 0.0014", "gap: 100.0 %"]);
  });
  it("has no details element when there are none", () => {
    const line = statusLine({ state: "optimal", text: "optimal · gap 0 %" });
    expect(line.querySelector(".sw-status-text").textContent).toBe("optimal · gap 0 %");
    expect(line.classList.contains("sw-warn")).toBe(false);
    expect(line.querySelector("details")).toBeNull();
  });
  it("has a green dot only when what it calls best is proven, and never amber without a warning", () => {
    const proven = statusLine({ state: "time_limit", text: "TPR 80 % at FPR 10 % · proven best under this cap",
      level: "ok", proven: true });
    expect(proven.classList.contains("sw-proven")).toBe(true);
    expect(proven.classList.contains("sw-warn")).toBe(false);
    const open = statusLine({ state: "time_limit", text: "TPR 80 % at FPR 10 % · best possible ≤ 90 % (proven)",
      level: "ok", proven: false });
    expect(open.classList.contains("sw-proven")).toBe(false);
    const warned = statusLine({ state: "optimal", level: "warn", proven: true, warning: "no patient reaches the threshold" });
    expect(warned.classList.contains("sw-proven")).toBe(false);
  });
  it("reads details as text, a list or pairs", () => {
    expect(detailLines("a")).toEqual(["a"]);
    expect(detailLines(["a", 2])).toEqual(["a", "2"]);
    expect(detailLines({ bound: null })).toEqual(["bound: –"]);
    expect(detailLines(null)).toEqual([]);
  });
});

describe("words explained on hover", () => {
  it("gives the status line, the figures' heads and the cost the meaning of TPR, FPR, cap and proven", async () => {
    const { statusLine, figuresTable } = await import("../src/card-dom.js");
    const { explain } = await import("../src/glossary.js");
    const line = statusLine({ state: "optimal", text: "TPR 95.3 % at FPR 19.6 % \u00b7 proven best under this cap" });
    const title = line.querySelector(".sw-status-text").title;
    for (const word of ["TPR (true-positive rate", "FPR (false-positive rate", "cap:", "proven:"]) expect(title).toContain(word);
    const heads = [...figuresTable([{ set: "train", error: 0.1, tpr: 0.9, fpr: 0.2, n: 10 }], 3).querySelectorAll("thead th")];
    expect(heads.find((h) => h.textContent === "TPR").title).toContain("sensitivity");
    expect(explain("error 12.1 %")).toContain("error:");
    expect(explain("nothing here")).toBe("");
    expect(explain("log-loss 0.35")).not.toContain("error:");
  });
});

describe("many rules", () => {
  it("folds the rules with 0 points behind 'show all N rules', and shows them on request", () => {
    const host = document.createElement("div");
    document.body.append(host);
    const rows = Array.from({ length: 30 }, (_, i) => ({ name: `rule ${i}`, points: i < 4 ? i + 1 : 0, binary: true,
      locked: i === 10 ? 0 : null, edited: false }));
    const model = fakeModel({ card: card({ rows }), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    const visible = () => [...host.querySelectorAll("tbody tr")].filter((r) => !r.classList.contains("sw-folded")).length;
    expect(visible()).toBe(5); // 4 rules in use and the one locked at 0
    expect(host.querySelectorAll("input.sw-points")).toHaveLength(30); // all still there, folded
    const button = host.querySelector("button.sw-fold");
    expect(button.textContent).toBe("show all 30 rules (25 with 0 points)");
    button.click();
    expect(visible()).toBe(30);
    model.push("card", card({ id: 2, rows })); // a new card keeps the user's choice
    expect(visible()).toBe(30);
    host.querySelector("button.sw-fold").click();
    expect(visible()).toBe(5);
    host.remove();
  });

  it("shows every rule of a small card, with no fold button", () => {
    const host = document.createElement("div");
    const model = fakeModel({ card: card(), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    expect(host.querySelector("button.sw-fold")).toBeNull();
    expect(host.querySelectorAll("tr.sw-folded")).toHaveLength(0);
  });
});

describe("the card by variable", () => {
  const byVariable = (over = {}) => card({
    variables: [{ variable: "lwt", locked: false, bands: [
      { label: "< 110", points: 0, editable: false, rules: [], kind: "band", edited: false },
      { label: "110–121", points: -5, editable: true, rules: ["lwt >= 110"], kind: "band", edited: false },
      { label: "≥ 122", points: -1, editable: true, rules: ["lwt >= 122"], kind: "band", edited: false }] }],
    variables_sum: "ADD THE POINTS OF EACH VARIABLE = SCORE",
    variables_note: "the note <b>from Python</b>",
    ...over,
  });

  it("prints the words Python sends under the table, as text", () => {
    const host = document.createElement("div");
    view.render({ model: fakeModel({ card: byVariable(), status: { state: "optimal", text: "" } }), el: host });
    expect(host.querySelector(".sw-vars-note").textContent).toBe("the note <b>from Python</b>");
    expect(host.querySelector(".sw-vars-sum").textContent).toBe("ADD THE POINTS OF EACH VARIABLE = SCORE");
    expect(host.querySelector(".sw-vars-note b")).toBeNull();
  });

  it("points out a bumpy variable with its cost, and its button asks for the monotone setting", () => {
    const host = document.createElement("div");
    const monotone = [{ variable: "lwt", choice: "decreasing", text: "lwt's points go up and down (0 · −5 · −1)",
      action: "make lwt decreasing", cost: "cost: error +0.5 pt · TPR −1.0 pt · FPR same (proven best under it)", ready: true }];
    const model = fakeModel({ card: byVariable({ monotone }), status: { state: "optimal", text: "" } });
    view.render({ model, el: host });
    const item = host.querySelector(".sw-monotone");
    expect(item.textContent).toBe("lwt's points go up and down (0 · −5 · −1) make lwt decreasing " +
      "cost: error +0.5 pt · TPR −1.0 pt · FPR same (proven best under it)");
    item.querySelector("button").click();
    expect(model.sent.at(-1)).toMatchObject({ type: "monotone", payload: { variable: "lwt", choice: "decreasing" } });
  });

  it("shows no pointer when every variable is monotone", () => {
    const host = document.createElement("div");
    view.render({ model: fakeModel({ card: byVariable({ monotone: [] }), status: { state: "optimal", text: "" } }), el: host });
    expect(host.querySelector(".sw-monotone-list")).toBeNull();
  });
});
