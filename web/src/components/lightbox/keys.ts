// What the lightbox does with a key press, as a pure mapping so it is tested without a DOM.

/** Something the keyboard can ask the lightbox to do. */
export type LightboxAction = 'close' | 'previous' | 'next' | 'zoomIn' | 'zoomOut' | 'resetZoom';

/** The fields of a keyboard event the mapping reads. */
export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
}

const ACTIONS: Readonly<Record<string, LightboxAction>> = {
  Escape: 'close',
  ArrowLeft: 'previous',
  ArrowRight: 'next',
  '+': 'zoomIn',
  // The unshifted key of '+' on many layouts.
  '=': 'zoomIn',
  '-': 'zoomOut',
  '0': 'resetZoom',
};

/** The action of a key press, or null for keys (and shortcuts with modifiers) left to the browser. */
export function keyAction(press: KeyPress): LightboxAction | null {
  if (press.altKey || press.ctrlKey || press.metaKey) return null;
  return Object.hasOwn(ACTIONS, press.key) ? (ACTIONS[press.key] ?? null) : null;
}
