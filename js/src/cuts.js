// anywidget view of the studio's cut-point panel (see cuts-dom.js): every edit goes to Python,
// which fits the rules again and re-solves, or says in place why it refused.
import { cutPanel } from "./cuts-dom.js";
import { requester, swap } from "./card-dom.js";

function render({ model, el: host }) {
  const root = document.createElement("div");
  host.append(root);
  const send = requester(model);
  const draw = () => swap(root, cutPanel(model.get("variables"), send));
  draw();
  model.on("change:variables", draw);
  return () => model.off("change:variables", draw);
}

export default { render };
