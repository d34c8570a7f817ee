/**
 * A caption's opening words: "Figure 3:", "Fig. 2.1", "Table 1-2", "Abbildung 4" … (a label and a number). Shared by
 * the PDF structure pass and the Markdown, HTML and DOCX walkers, so every format recognises the same captions.
 */
export const CAPTION_START = /^([Ff]igure|FIGURE|[Ff]ig\.|[Tt]able|TABLE|[Tt]ab\.|[Ll]isting|[Ee]xample|[Cc]hart|[Aa]bbildung|[Aa]bb\.|[Tt]abelle|[Bb]ild)\s*(\d+|[A-Z]|[IVX]{1,4})([.\-–:]\d+)*[.:]?(\s|$)/;

/** A figure's caption ("Figure 3:", "Fig. 2.1", "Abb. 4" …), as opposed to a table's, a listing's or an example's. */
export const FIGURE_CAPTION_START = /^([Ff]igure|FIGURE|[Ff]ig\.|[Cc]hart|[Aa]bbildung|[Aa]bb\.|[Bb]ild)\s*(\d+|[A-Z]|[IVX]{1,4})([.\-–:]\d+)*[.:]?(\s|$)/;

/** Longer paragraphs that open like a caption are prose that mentions a figure ("Figure 3 shows …" over many lines). */
const CAPTION_MAX_CHARS = 400;

/** Whether a paragraph reads as a figure or table caption. */
export function looksLikeCaption(text: string): boolean {
  return text.length <= CAPTION_MAX_CHARS && CAPTION_START.test(text.trim());
}
