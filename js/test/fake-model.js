// A stand-in for anywidget's model: get/set/on/off/save_changes over a plain object, and the
// custom messages a view sends (`sent`) and Python's answers (`answer`).
export function fakeModel(state) {
  const values = { ...state };
  const handlers = new Map();
  const saved = [];
  const sent = [];
  return {
    get: (k) => values[k],
    set: (k, v) => { values[k] = v; },
    save_changes: () => saved.push({ ...values }),
    send: (msg) => sent.push(msg),
    on: (ev, fn) => { if (!handlers.has(ev)) handlers.set(ev, []); handlers.get(ev).push(fn); },
    off: (ev, fn) => { handlers.set(ev, (handlers.get(ev) || []).filter((f) => f !== fn)); },
    // what Python does: change a trait and notify the views
    push(k, v) { values[k] = v; for (const fn of handlers.get(`change:${k}`) || []) fn(); },
    // what Python does with a request: answer it, echoing its id
    answer(msg) { for (const fn of handlers.get("msg:custom") || []) fn(msg); },
    saved,
    sent,
    handlers,
  };
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
