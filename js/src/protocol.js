// What the studio's views and Python say to each other: the messages are declared once, in
// slimwidgets/widgets/protocol.json (Python reads the same file), and sent by one send().
import PROTOCOL from "../../slimwidgets/widgets/protocol.json";

/** For each view, the requests it may send and the fields of each. */
export const REQUESTS = PROTOCOL.requests;
/** The fields of the card view's status trait: all a view may read of it. */
export const STATUS_FIELDS = PROTOCOL.status;

/**
 * The send() of the view `view` ("card", "cuts", "chart", "alternatives"): `send(type, payload)`
 * sends `{id, type, payload}` to Python as a custom message and returns a promise of Python's
 * answer `{id, ok, error}` (the answer with the same id). A type or field the protocol does not
 * declare for the view is refused here, before anything is sent. `send.close()` stops listening.
 */
export function connect(model, view) {
  const declared = REQUESTS[view];
  if (!declared) throw new Error(`protocol.json declares no view "${view}"`);
  const waiting = new Map();
  let count = 0;
  const onAnswer = (msg) => {
    const done = msg && waiting.get(msg.id);
    if (!done) return;
    waiting.delete(msg.id);
    done(msg);
  };
  model.on("msg:custom", onAnswer);
  const send = (type, payload = {}) => {
    const fields = declared[type];
    if (!fields) return Promise.reject(new Error(`the ${view} view sends no request "${type}"`));
    const unknown = Object.keys(payload).filter((k) => !fields.includes(k));
    if (unknown.length) return Promise.reject(new Error(`a "${type}" request has no field "${unknown[0]}"`));
    count += 1;
    const id = `${view}-${Date.now()}-${count}`;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      model.send({ id, type, payload });
    });
  };
  send.close = () => model.off("msg:custom", onAnswer);
  return send;
}
