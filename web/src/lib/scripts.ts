// Tifinagh, the script of Tamazight (zgh), is missing from some systems (macOS, iOS): its glyphs come
// with the app, as the face 'Noto Sans Tifinagh' that the font stack of global.css names. Its
// declaration is loaded only where Tifinagh is shown (the zgh interface, the language pickers), so
// no other page pays for it; it covers only Tifinagh's code points (unicode-range), so the browser
// downloads the font itself (18 KB) only when such a letter is on screen and no system font has it.

let loading: Promise<unknown> | undefined;

/** Declares the bundled Tifinagh face (once). Never fails: without it, the systems' fonts remain. */
export function loadTifinagh(): Promise<unknown> {
  loading ??= import('@fontsource/noto-sans-tifinagh/tifinagh-400.css').catch(() => {
    loading = undefined; // a later page may try again
  });
  return loading;
}
