// Keyboard use of the studio's ipywidgets sliders in Jupyter Notebook 7.
//
// Both JupyterLab 4 and Notebook 7 route key presses through Lumino's command registry from
// a keydown listener on the document. JupyterLab registers it for the bubble phase, so the
// focused slider handle sees the key first: noUiSlider moves the handle and calls
// preventDefault(), and the registry ignores events whose default is prevented. Notebook 7
// registers it for the capture phase, so the registry sees the key first. In command mode
// ArrowLeft/Right/Up/Down are bound to notebook commands under the selector
// ".jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus", which the focused handle
// itself matches; the registry runs the command and stops the event on the document, and the
// handle never receives it. (A data-lm-suppress-shortcuts attribute on an ancestor such as
// .sw-studio does not help: the registry tests the focused element against the selector
// before it walks up to the ancestor that carries the attribute.)
//
// The only listener that runs before a capturing one on the document is a capturing one on
// the window. Ours marks the keys noUiSlider acts on as handled (preventDefault) when they are
// pressed on an enabled slider handle inside a studio, and lets them travel on: the registry
// then skips them, as it does in JupyterLab, and the handle's own listener moves the slider.
// Every other key, and every key pressed anywhere else, is left alone.

const SLIDER_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End"]);
const STUDIO_HANDLE = ".sw-studio .noUi-handle";
// one listener per window, shared by every card view (and every copy of this bundle) on the page
const SHARED = Symbol.for("slimwidgets.slider-keys");

/** Whether a keydown event is a slider key pressed on an enabled handle of a studio slider. */
export function isStudioSliderKey(event) {
  const target = event.target;
  if (!SLIDER_KEYS.has(event.key) || event.ctrlKey || event.altKey || event.metaKey) return false;
  if (!target || typeof target.matches !== "function" || !target.matches(STUDIO_HANDLE)) return false;
  return target.closest("[disabled]") === null; // noUiSlider ignores keys on a disabled slider
}

function onKeydown(event) {
  if (!event.defaultPrevented && isStudioSliderKey(event)) event.preventDefault();
}

/**
 * Keep slider keys away from the application's shortcuts while a view is on the page.
 * Returns the release function; the listener goes when the last holder releases it.
 */
export function holdSliderKeys(win = window) {
  let state = win[SHARED];
  if (!state) {
    state = { holders: 0, listener: onKeydown };
    win[SHARED] = state;
  }
  if (state.holders === 0) win.addEventListener("keydown", state.listener, true);
  state.holders += 1;
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    state.holders -= 1;
    if (state.holders === 0) win.removeEventListener("keydown", state.listener, true);
  };
}
