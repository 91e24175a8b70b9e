// Vega-Lite charts whose data change in place: the spec's named data sets are filled
// from a separate `datasets` trait, and later changes swap rows with view.change().

/** The spec to embed: the structure plus the current rows as top-level datasets. */
export function withDatasets(spec, datasets) {
  return { ...spec, datasets: { ...(spec.datasets || {}), ...(datasets || {}) } };
}

/** Names whose rows differ between two {name: rows} maps (by JSON value). */
export function changedNames(before, after) {
  const names = new Set([...Object.keys(before || {}), ...Object.keys(after || {})]);
  return [...names].filter((n) => JSON.stringify((before || {})[n] || []) !== JSON.stringify((after || {})[n] || []));
}

/** Swap the rows of the changed data sets of a live vega View; resolves when it has re-rendered. */
export async function updateView(view, vega, before, after) {
  const names = changedNames(before, after);
  for (const name of names) {
    const rows = (after || {})[name] || [];
    view.change(name, vega.changeset().remove(() => true).insert(rows.map((r) => ({ ...r }))));
  }
  if (names.length) await view.runAsync();
  return names;
}

/** The spec key of a clicked mark (only frontier/path points carry one), or null. */
export function clickedKey(item) {
  const datum = item && item.datum;
  return datum && typeof datum.key === "string" ? datum.key : null;
}

/** Run async tasks one after another (renders must not interleave). */
export function serial() {
  let tail = Promise.resolve();
  return (task) => {
    tail = tail.then(task, task).catch((err) => console.error("slimwidgets chart:", err));
    return tail;
  };
}
