// Discord's markdown, the only markup among the carriers that renders what scanrelay sends (ntfy shows plain text
// unless asked with a Markdown header, Gotify unless its extras say text/markdown, Apprise takes `format: text`):
// a value from outside (a release name, a folder, a server's error text) is written so it shows as it was typed.

/**
 * Every character Discord's markdown gives a meaning, and backslash itself: bold, italics, underline,
 * strikethrough and spoilers (`* _ ~ |`), code (`` ` ``), headings and subtext at a line's start (`# -`), lists
 * (`- * +`, `1.`), quotes (`>`), masked links `[x](url)`, links `http:`, emoji `:name:`, mentions and
 * timestamps `<@id> <@&role> <#channel> <t:…>` and `@everyone`/`@here` (allowed_mentions stops the ping; the
 * escape keeps the text from looking like one). A backslash before any ASCII punctuation shows the character
 * itself (Discord's "Markdown Text 101", https://support.discord.com/hc/en-us/articles/210298617, on escaping), so a value
 * shows as typed and nothing of it can format, link or mention.
 */
const MARKDOWN = /[\\`*_~|<>#+\-=[\]()!.:@]/g;

export const escapeMarkdown = (value: string): string => value.replace(MARKDOWN, '\\$&');
