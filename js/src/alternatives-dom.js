// DOM of the studio's alternatives list. Pure functions of the `rows` and `state` traits, which
// Python builds from the cards (every figure is already in the user's units there).
import { el } from "./card-dom.js";
import { explain } from "./glossary.js";

/** One feature of a row: its name (as text, never as HTML) and its points. */
function feature(f) {
  const pts = f.points > 0 ? `+${f.points}` : `\u2212${Math.abs(f.points)}`;
  return el("span", { class: "sw-alt-feature", title: f.name }, el("span", { class: "sw-alt-fname", text: f.name }),
    el("span", { class: "sw-alt-pts", text: pts }));
}

/** One variable of a row, read as the card reads it: its name and its bands' points. */
function variable(v) {
  return el("span", { class: "sw-alt-feature sw-alt-variable", title: `${v.name}: ${v.text}` },
    el("span", { class: "sw-alt-fname", text: v.name }), el("span", { class: "sw-alt-bands", text: v.text }));
}

/** The row's card: by variable for a raw table's card (as the card reads), else rule by rule. */
function cardParts(row) {
  if (Array.isArray(row.variables)) {
    return row.variables.length ? row.variables.map(variable) : el("span", { class: "sw-alt-none", text: "no variable" });
  }
  return row.features.length ? row.features.map(feature) : el("span", { class: "sw-alt-none", text: "no feature" });
}

/** A labelled group of figures; each figure ("FPR 18.0 %") stays on one line. */
function figures(cls, label, texts) {
  const parts = texts.flatMap((t, i) => [i ? " · " : " ", el("span", { class: "sw-alt-fig", text: t })]);
  return el("span", { class: cls }, label, ...parts);
}

/** One alternative: rank, features with points, figures, held-out figures, difference to the card shown. */
export function altRow(row, choose) {
  const item = el("li", {
    class: `sw-alt${row.current ? " sw-alt-current" : ""}`, "data-rank": row.rank, tabindex: "0", role: "button",
    title: `${row.how} · ${row.details}`, "aria-current": row.current ? "true" : null,
  },
  el("span", { class: "sw-alt-rank", text: String(row.rank) }),
  el("span", { class: "sw-alt-body" },
    el("span", { class: "sw-alt-features" }, cardParts(row)),
    el("span", { class: "sw-alt-figures" },
      el("span", { class: "sw-alt-size", text: `${row.size} feature${row.size === 1 ? "" : "s"}` }),
      figures("sw-alt-train", "train:", row.train),
      row.held_out.length ? figures("sw-alt-held", "held-out:", row.held_out) : null)),
  el("span", { class: "sw-alt-diff", text: row.difference }));
  const pick = () => { if (!row.current) choose(row.rank); };
  item.addEventListener("click", pick);
  item.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
  return item;
}

/** The whole list: a heading with the search's progress or verdict, then the rows. */
export function altList(rows, state, choose) {
  const s = state || {};
  const head = el("div", { class: "sw-alts-head" },
    el("span", { class: "sw-alts-title", text: "Other cards nearly as good" }),
    s.phase === "running" ? el("span", { class: "sw-alts-spinner", "aria-hidden": "true" }) : null,
    el("span", { class: "sw-alts-state", "data-phase": s.phase || "waiting", text: s.text || "", title: explain(s.text) || null }),
    el("span", { class: "sw-clock" }));
  const notice = s.notice ? el("div", { class: "sw-alts-notice", "data-level": s.level || "info", text: s.notice }) : null;
  const list = el("ol", { class: "sw-alts-list" }, (rows || []).map((r) => altRow(r, choose)));
  const hint = rows && rows.length > 1 ? el("div", { class: "sw-alts-hint", text: "click a row to show that card (undo goes back)" }) : null;
  return el("div", { class: "sw-alts", "data-phase": s.phase || "waiting", "data-rows": (rows || []).length },
    head, notice, hint, list);
}
