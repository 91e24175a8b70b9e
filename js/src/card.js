// anywidget view of the studio's point table and status line.
import { cardTable, statusLine, swap, el } from "./card-dom.js";
import { connect } from "./protocol.js";
import { holdSliderKeys } from "./slider-keys.js";
import { riskTable } from "./risk-table.js";

// the status fields the line shows (each one of protocol.json's status fields)
export const SHOWN_STATUS = ["state", "text", "level", "proven", "warning", "details"];

function render({ model, el: host }) {
  const root = el("div", { class: "sw-card" });
  const statusHost = el("div", { class: "sw-status-host" });
  const bodyHost = el("div", { class: "sw-body-host" });
  const riskHost = el("div", { class: "sw-risk-host" });
  root.append(statusHost, bodyHost, riskHost);
  host.append(root);
  const send = connect(model, "card");
  let shownStatus = null;
  const drawStatus = () => {
    const status = model.get("status") || {};
    // the line is redrawn only when what it says changes; its clock ticks on its own and reads
    // the solve's start from the model, so a new start alone redraws nothing
    const words = JSON.stringify(SHOWN_STATUS.map((k) => status[k]));
    if (words === shownStatus) return;
    shownStatus = words;
    statusHost.replaceChildren(statusLine(status));
    root.setAttribute("data-state", status.state || "idle");
  };
  // whether the rules with 0 points are shown (a choice of the user's: kept across redraws)
  const fold = { expanded: false, toggle: () => { fold.expanded = !fold.expanded; drawCard(); } };
  const drawCard = () => {
    const card = model.get("card");
    root.classList.toggle("sw-previous", !!(card && card.is_previous));
    root.setAttribute("data-card-id", card ? String(card.id) : "");
    swap(bodyHost, cardTable(card, model.get("status"), send, fold));
    const risk = card ? riskTable(card.risk_table) : null;
    riskHost.replaceChildren(...(risk ? [risk] : []));
  };
  // a ticking clock while a solve runs (wall time since the solve started)
  const timer = setInterval(() => {
    const status = model.get("status") || {};
    const clock = statusHost.querySelector(".sw-clock");
    if (clock && status.started) clock.textContent = ` · running ${(Date.now() / 1000 - status.started).toFixed(1)} s`;
  }, 250);
  // the studio's slider handles get their arrow keys in Notebook 7 too (see slider-keys.js)
  const releaseSliderKeys = holdSliderKeys();
  drawStatus();
  drawCard();
  model.on("change:status", drawStatus);
  model.on("change:card", drawCard);
  return () => {
    clearInterval(timer);
    send.close();
    releaseSliderKeys();
    model.off("change:status", drawStatus);
    model.off("change:card", drawCard);
  };
}

export default { render };
