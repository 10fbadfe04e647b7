// Half of a UTF-16 surrogate pair: what a cut at N code units leaves of an emoji or a CJK extension character, and
// what then reaches a log line, an answer or a notification as U+FFFD or as invalid text. The tests check for the
// same pattern the path gate refuses and the notifiers replace.
export { LONE_SURROGATE } from '../../src/text-cut.js';
