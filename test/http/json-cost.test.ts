// src/http/json-cost.ts's reader in pieces gives exactly what JSON.parse gives for any list or object (strings
// holding commas, brackets and escaped quotes, nesting, white space, a byte-order mark), refuses what JSON.parse
// refuses, refuses past its bounds what JSON.parse would have built whole, and never parses more than a piece at
// once nor holds more than what is kept.
import { describe, expect, it } from 'vitest';
import { AnswerTooCostly, jsonCost, parseInPieces } from '../../src/http/json-cost.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('an answer read in pieces', () => {
  it.each([
    '[]',
    ' [ ] ',
    '[1]',
    '[{"path":"/tv/a, b [c]","t":"say \\"hi\\", \\\\"},[1,[2,{"x":"]"}]],null,true,"é\\u0100"]',
    '\n[\n  {"id": 1},\n  {"id": 2}\n]\n',
    '\ufeff[0,1]',
    '{}',
    '{"page":2,"pageSize":500,"sortKey":"date","totalRecords":1501,"records":[{"id":1,"data":{"a":"}]"}},{"id":2}]}',
    ' { "a\\"b" : [ ] , "c" : {"d":[1,2]}, "e": null } ',
  ])('%s as JSON.parse reads it', async (text) => {
    expect(await parseInPieces(bytes(text))).toEqual(JSON.parse(text.replace(/^\ufeff/, '')));
  });

  it.each(['[1,]', '[,1]', '[1', '[1] x', '[{"a":1]', '{"a":[1]', '{"a" 1}', '{a:1}', '{"a":1,}', '1', '"x"'])('%s is refused', async (text) => {
    await expect(parseInPieces(bytes(text))).rejects.toThrow(SyntaxError);
  });

  it('parses no more than a piece at once, and holds only what is kept of each entry', async () => {
    const entry = (n: number) => JSON.stringify({ id: n, path: `/tv/Show ${n}`, images: Array.from({ length: 20 }, (_, i) => ({ coverType: 'poster', url: `/MediaCover/${n}/${i}.jpg` })) });
    const list = bytes(`[${Array.from({ length: 20_000 }, (_, n) => entry(n)).join(',')}]`);
    const parse = JSON.parse;
    const parsed: number[] = [];
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => (parsed.push(text.length), parse(text, reviver))) as typeof JSON.parse;
    let paths: unknown;
    try {
      paths = await parseInPieces(list, (e) => (e as { path: string }).path, 2 * 1024 * 1024);
    } finally {
      JSON.parse = parse;
    }
    expect(paths).toEqual(Array.from({ length: 20_000 }, (_, n) => `/tv/Show ${n}`));
    expect(parsed.length).toBeGreaterThan(100);
    // A piece is 16 KiB of entries, and the entry it ends in.
    expect(Math.max(...parsed)).toBeLessThan(16 * 1024 + 2 * entry(19_999).length);
    // Kept whole, the same entries are past that budget.
    await expect(parseInPieces(list, undefined, 2 * 1024 * 1024)).rejects.toBeInstanceOf(AnswerTooCostly);
  });

  it('past its depth or its weight: AnswerTooCostly, as the whole-answer weighing says', async () => {
    await expect(parseInPieces(bytes('['.repeat(100) + ']'.repeat(100)))).rejects.toThrow(/nests deeper than 64 levels/);
    const objects = bytes(`[${'{},'.repeat(100_000)}{}]`);
    await expect(parseInPieces(objects, undefined, 1024 * 1024)).rejects.toBeInstanceOf(AnswerTooCostly);
    await expect(parseInPieces(bytes(`[[${'{},'.repeat(100_000)}{}]]`))).rejects.toThrow(/an entry of it would take more than 4 MiB/);
    expect(() => jsonCost(objects, 1024 * 1024)).toThrow(AnswerTooCostly);
  });
});
