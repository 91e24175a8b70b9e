// The risk table of a risk card: per total score, the predicted risk beside the observed rate
// (with its 95 % Wilson interval) on the training rows and, when the studio has them, on the
// held-out rows. Every number comes from Python (card.risk_table); this only lays it out.
import { el } from "./card-dom.js";

const pct = (v) => (v === null || v === undefined ? "–" : `${(100 * v).toFixed(1)} %`);
const count = (v) => (v === null || v === undefined ? "" : String(Math.round(v * 100) / 100));

/** One observed-rate cell: the rate, its interval and "events/rows", on one line. */
function observed(row, prefix) {
  const n = row[`${prefix}_count`];
  if (n === null || n === undefined) return el("td", { class: "sw-risk-none", text: "no rows" });
  const interval = `${pct(row[`${prefix}_lower`])} – ${pct(row[`${prefix}_upper`])}`.replace(/ %(?= –)/, "");
  // one line: the rate, its interval, and "events/rows" (said in full on hover)
  const events = count(row[`${prefix}_events`]);
  return el("td", { class: "sw-risk-obs", title: `${events} events among ${count(n)} rows; 95 % Wilson interval ${interval}` },
    el("div", { class: "sw-risk-rate", text: pct(row[`${prefix}_rate`]) }),
    el("div", { class: "sw-risk-ci", text: interval }),
    el("div", { class: "sw-risk-n", text: `${events}/${count(n)}` }));
}

/** The table, or null when the card has none (a decision card). */
export function riskTable(rows) {
  if (!Array.isArray(rows) || !rows.length) return null;
  const heldOut = rows.some((r) => "val_count" in r);
  // "(95 % CI)" stays on one line when a narrow column wraps its heading
  const ci = () => el("span", { class: "sw-risk-ci-head", text: "(95 % CI)" });
  const head = [["total score"], ["predicted risk"], ["observed, train ", ci()]]
    .concat(heldOut ? [["observed, held-out ", ci()]] : []);
  const table = el("table", { class: "sw-risk-table" },
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, ...h)))),
    el("tbody", {}, ...rows.map((r) => el("tr", { "data-score": r.score },
      el("th", { class: "sw-risk-score", text: String(r.score).replace("-", "\u2212") }),
      el("td", { class: "sw-risk-pred", text: pct(r.predicted) }),
      observed(r, "train"), heldOut ? observed(r, "val") : null))));
  return el("div", { class: "sw-risk" },
    el("div", { class: "sw-risk-title", text: "risk by total score" }),
    el("div", { class: "sw-risk-scroll" }, table));
}
