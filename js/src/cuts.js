// anywidget view of the studio's cut-point panel (see cuts-dom.js): every edit goes to Python,
// which fits the rules again and re-solves, or says in place why it refused.
import { cutPanel } from "./cuts-dom.js";
import { swap } from "./card-dom.js";
import { connect } from "./protocol.js";

function render({ model, el: host }) {
  const root = document.createElement("div");
  host.append(root);
  const send = connect(model, "cuts");
  const draw = () => swap(root, cutPanel(model.get("variables"), send));
  draw();
  model.on("change:variables", draw);
  return () => {
    send.close();
    model.off("change:variables", draw);
  };
}

export default { render };
