// src/json-cost.ts's list reader gives exactly what JSON.parse gives for any list (strings holding commas,
// brackets and escaped quotes, nesting, white space, a byte-order mark), refuses what JSON.parse refuses, and
// refuses past its bounds what JSON.parse would have built whole.
import { describe, expect, it } from 'vitest';
import { AnswerTooCostly, jsonCost, parseListAnswer } from '../../src/http/json-cost.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('a list answer read entry by entry', () => {
  it.each([
    '[]',
    ' [ ] ',
    '[1]',
    '[{"path":"/tv/a, b [c]","t":"say \\"hi\\", \\\\"},[1,[2,{"x":"]"}]],null,true,"é\\u0100"]',
    '\n[\n  {"id": 1},\n  {"id": 2}\n]\n',
    '\ufeff[0,1]',
  ])('%s as JSON.parse reads it', async (text) => {
    expect(await parseListAnswer(bytes(text))).toEqual(JSON.parse(text.replace(/^\ufeff/, '')));
  });

  it.each(['[1,]', '[,1]', '[1', '[1] x', '[{"a":1]', '{"a":[1]}'])('%s is refused', async (text) => {
    await expect(parseListAnswer(bytes(text))).rejects.toThrow(SyntaxError);
  });

  it('past its depth or its weight: AnswerTooCostly, as the whole-answer weighing says', async () => {
    await expect(parseListAnswer(bytes('['.repeat(100) + ']'.repeat(100)))).rejects.toThrow(/nests deeper than 64 levels/);
    const objects = bytes(`[${'{},'.repeat(100_000)}{}]`);
    await expect(parseListAnswer(objects, 1024 * 1024)).rejects.toBeInstanceOf(AnswerTooCostly);
    expect(() => jsonCost(objects, 1024 * 1024)).toThrow(AnswerTooCostly);
  });
});
