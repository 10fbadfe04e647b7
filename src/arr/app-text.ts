// Text an app chose (its name, its version, what it said in an error), as scanrelay shows it anywhere, the public
// /health among them: control characters written as escapes, so it forges no line of a terminal or a log, and cut
// to a length no status needs, so an app cannot make every /health answer as large as it likes.
import { escapeControls } from '../log/format.js';
import { keepStart } from '../text-cut.js';
import { shownUrl } from '../http/url-credentials.js';

/** A name or a version: "4.0.14.2939", "Sonarr". */
export const APP_WORD_MAX = 64;
/** An error text, with the app's words in it. */
export const APP_SENTENCE_MAX = 400;

/** Longer than anything shown, cut before the rest runs: an app's 250 KB version costs no more than this. */
const READ_MAX = 4096;

export function appText(text: string, max = APP_WORD_MAX): string {
  const shown = escapeControls(shownUrl(keepStart(text, READ_MAX)));
  return shown.length > max ? `${keepStart(shown, max - 1)}…` : shown;
}
