// Half of a UTF-16 surrogate pair: what a cut at N code units leaves of an emoji or a CJK extension character, and
// what then reaches a log line, an answer or a notification as U+FFFD or as invalid text. (String's isWellFormed is
// ES2024, past the lib the project compiles against.)
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
