// anywidget view of one Altair chart, drawn with the Vega bundled here (no CDN).
import * as vega from "vega";
import { compile } from "vega-lite";
import { withDatasets, updateView, clickedKey, serial } from "./chart-core.js";
import { connect } from "./protocol.js";

function render({ model, el: host }) {
  const box = document.createElement("div");
  box.className = "sw-chart";
  host.append(box);
  let view = null;
  let shownSpec = null;
  let shownData = {};
  let renders = 0;
  const queue = serial();
  const send = connect(model, "chart");

  const embed = async () => {
    const spec = model.get("spec");
    const datasets = model.get("datasets") || {};
    if (view) { view.finalize(); view = null; }
    if (!spec || !Object.keys(spec).length) { box.replaceChildren(); return; }
    let next;
    try {
      next = new vega.View(vega.parse(compile(withDatasets(spec, datasets)).spec),
        { renderer: "svg", container: box, hover: true });
    } catch (err) { // say why instead of leaving a blank space
      box.replaceChildren(Object.assign(document.createElement("div"),
        { className: "sw-chart-error", textContent: `this chart could not be drawn: ${err.message || err}` }));
      return;
    }
    next.addEventListener("click", (_event, item) => {
      const key = clickedKey(item);
      if (key) send("load", { key });
    });
    await next.runAsync();
    view = next;
    shownSpec = JSON.stringify(spec);
    shownData = datasets;
    renders += 1;
    box.setAttribute("data-renders", String(renders));
    box.setAttribute("data-updates", "0");
  };

  const update = async () => {
    const spec = model.get("spec");
    if (!view || JSON.stringify(spec) !== shownSpec) return embed();
    const datasets = model.get("datasets") || {};
    const changed = await updateView(view, vega, shownData, datasets);
    shownData = datasets;
    if (changed.length) box.setAttribute("data-updates", String(Number(box.getAttribute("data-updates") || 0) + 1));
  };

  queue(embed);
  const onSpec = () => queue(embed);
  const onData = () => queue(update);
  model.on("change:spec", onSpec);
  model.on("change:datasets", onData);
  return () => {
    send.close();
    model.off("change:spec", onSpec);
    model.off("change:datasets", onData);
    if (view) view.finalize();
  };
}

export default { render };
