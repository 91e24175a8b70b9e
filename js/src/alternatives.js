// anywidget view of the studio's alternatives list (the Rashomon view): a click loads a row.
import { altList } from "./alternatives-dom.js";
import { connect } from "./protocol.js";

function render({ model, el: host }) {
  const send = connect(model, "alternatives");
  const choose = (rank) => send("load", { rank });
  const draw = () => {
    const scroller = host.querySelector(".sw-alts-list");
    const top = scroller ? scroller.scrollTop : 0; // new rows must not throw the reader back to the top
    host.replaceChildren(altList(model.get("rows"), model.get("state"), choose));
    const list = host.querySelector(".sw-alts-list");
    if (list) list.scrollTop = top;
  };
  // how long the search has run, while it runs
  const timer = setInterval(() => {
    const state = model.get("state") || {};
    const clock = host.querySelector(".sw-clock");
    if (clock) clock.textContent = state.phase === "running" && state.started
      ? ` · ${(Date.now() / 1000 - state.started).toFixed(1)} s` : "";
  }, 250);
  draw();
  model.on("change:rows", draw);
  model.on("change:state", draw);
  return () => {
    clearInterval(timer);
    send.close();
    model.off("change:rows", draw);
    model.off("change:state", draw);
  };
}

export default { render };
