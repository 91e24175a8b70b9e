// anywidget view of the studio's groups: the status in words and the per-group table under the card.
import { groupPanel } from "./groups-dom.js";

function render({ model, el: host }) {
  const draw = () => host.replaceChildren(groupPanel(model.get("view")));
  draw();
  model.on("change:view", draw);
  return () => model.off("change:view", draw);
}

export default { render };
