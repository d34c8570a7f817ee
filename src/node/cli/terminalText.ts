/**
 * Text from documents and file names reaches a terminal through `search`, `docs`, `toc` and `ask`; a document
 * could carry escape sequences that retitle the window, rewrite earlier lines or spoof output. Human output
 * drops every control character except newline and tab; JSON output escapes them instead.
 */

// ESC- and 8-bit-introduced sequences whole (CSI with its parameters, OSC/DCS/APC/PM/SOS strings up to their
// terminator), and other escapes with their intermediate and final bytes (`ESC ( B`), so no parameter bytes
// are left behind as visible garbage; then any single control left over.
const ESCAPE_SEQUENCE = /[\x1b]\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|\x1b[ -/]*[0-~]?/g;
const CONTROL_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const C1_OR_DELETE = /[\x7f-\x9f]/g;

/** `text` without terminal control characters (C0 except `\n` and `\t`, DEL, C1) and escape sequences. */
export function stripTerminalControls(text: string): string {
  // Most output has none; skip the replacements then.
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text)) {
    return text;
  }
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL_CHARACTER, '');
}

/**
 * JSON whose strings keep control characters as `\u` escapes: `JSON.stringify` already escapes C0 (and ESC),
 * but leaves DEL and C1 (e.g. U+009B, a CSI on some terminals) raw.
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(C1_OR_DELETE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
