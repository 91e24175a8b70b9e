import { describe, it, expect, beforeEach, afterEach } from "vitest";
import view from "../src/card.js";
import { holdSliderKeys, isStudioSliderKey } from "../src/slider-keys.js";
import { fakeModel } from "./fake-model.js";

// The page as Notebook 7 has it: the command registry listens on the document in the capture
// phase, and a command-mode binding on the arrow keys matches any focused element; it skips
// events whose default is prevented, and stops the ones it runs.
let shortcuts, handleKeys, releases;
const registry = (event) => {
  if (event.defaultPrevented || !event.key.startsWith("Arrow")) return;
  shortcuts.push(event.key);
  event.preventDefault();
  event.stopPropagation();
};

// a noUiSlider as ipywidgets draws it: target > origin > handle (focusable), a keydown listener on the handle
function slider(parent, { disabled = false } = {}) {
  const target = document.createElement("div");
  target.className = "noUi-target";
  if (disabled) target.setAttribute("disabled", "true");
  const origin = document.createElement("div");
  origin.className = "noUi-origin";
  const handle = document.createElement("div");
  handle.className = "noUi-handle";
  handle.tabIndex = 0;
  handle.addEventListener("keydown", (event) => {
    if (target.hasAttribute("disabled")) return;
    handleKeys.push(event.key);
    event.preventDefault();
  });
  origin.append(handle);
  target.append(origin);
  parent.append(target);
  return handle;
}

const press = (el, key, mods = {}) =>
  el.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...mods }));

let studio, handle;
beforeEach(() => {
  document.body.innerHTML = "";
  shortcuts = [];
  handleKeys = [];
  releases = [];
  document.addEventListener("keydown", registry, true);
  studio = document.createElement("div");
  studio.className = "sw-studio";
  document.body.append(studio);
  handle = slider(studio);
});
afterEach(() => {
  document.removeEventListener("keydown", registry, true);
  for (const release of releases) release();
});
const hold = () => { const release = holdSliderKeys(); releases.push(release); return release; };

describe("slider keys in Notebook 7", () => {
  it("are taken by the shortcut and never reach the handle without the hold (the problem)", () => {
    for (const key of ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]) press(handle, key);
    expect(shortcuts).toEqual(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]);
    expect(handleKeys).toEqual([]);
  });

  it("reach the handle and no shortcut while a view holds them", () => {
    hold();
    for (const key of ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "PageUp", "Home", "ArrowUp"]) {
      press(handle, key, { shiftKey: key === "Home" });
    }
    expect(handleKeys).toEqual(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "PageUp", "Home", "ArrowUp"]);
    expect(shortcuts).toEqual([]);
  });

  it("leave every other key, element and slider to the shortcuts", () => {
    hold();
    press(handle, "a");
    press(handle, "ArrowDown", { ctrlKey: true });
    press(handle, "ArrowDown", { altKey: true });
    press(handle, "ArrowDown", { metaKey: true });
    const elsewhere = document.createElement("div");
    document.body.append(elsewhere);
    press(elsewhere, "ArrowDown"); // a cell, say
    press(slider(document.body), "ArrowUp"); // somebody else's slider, outside the studio
    press(slider(studio, { disabled: true }), "ArrowLeft"); // "no cap": the slider ignores keys
    const input = document.createElement("input");
    studio.append(input);
    press(input, "ArrowRight");
    expect(shortcuts).toEqual(["ArrowDown", "ArrowDown", "ArrowDown", "ArrowDown", "ArrowUp", "ArrowLeft",
      "ArrowRight"]);
    expect(handleKeys).toEqual(["a"]);
  });

  it("isStudioSliderKey tells which events are claimed", () => {
    const ev = (key, target, mods = {}) => ({ key, target, ctrlKey: false, altKey: false, metaKey: false, ...mods });
    expect(isStudioSliderKey(ev("ArrowLeft", handle))).toBe(true);
    expect(isStudioSliderKey(ev("End", handle, { shiftKey: true }))).toBe(true);
    expect(isStudioSliderKey(ev("Enter", handle))).toBe(false);
    expect(isStudioSliderKey(ev("ArrowLeft", handle, { ctrlKey: true }))).toBe(false);
    expect(isStudioSliderKey(ev("ArrowLeft", studio))).toBe(false);
    expect(isStudioSliderKey(ev("ArrowLeft", document))).toBe(false);
    expect(isStudioSliderKey(ev("ArrowLeft", null))).toBe(false);
  });
});

describe("the hold", () => {
  it("is one listener for all holders, gone when the last one releases (twice is once)", () => {
    const first = hold();
    const second = hold();
    first();
    first();
    press(handle, "ArrowLeft");
    expect(handleKeys).toEqual(["ArrowLeft"]);
    second();
    press(handle, "ArrowLeft");
    expect(handleKeys).toEqual(["ArrowLeft"]);
    expect(shortcuts).toEqual(["ArrowLeft"]);
    hold();
    press(handle, "ArrowRight");
    expect(handleKeys).toEqual(["ArrowLeft", "ArrowRight"]);
  });

  it("is taken by each card view and let go by its cleanup", () => {
    const host = document.createElement("div");
    studio.append(host);
    const model = () => fakeModel({ card: null, status: { state: "idle", text: "" }, request: {} });
    const cleanups = [view.render({ model: model(), el: host }), view.render({ model: model(), el: host })];
    press(handle, "ArrowUp");
    cleanups[0]();
    press(handle, "ArrowDown");
    expect(handleKeys).toEqual(["ArrowUp", "ArrowDown"]);
    cleanups[1]();
    press(handle, "ArrowDown");
    expect(handleKeys).toEqual(["ArrowUp", "ArrowDown"]);
    expect(shortcuts).toEqual(["ArrowDown"]);
  });
});
