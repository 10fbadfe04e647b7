// Issue 52, finding 6: `scanrelay connect` printed what the app answered as it came (its root folders, its Connect
// entries' names, its error texts: escape sequences reached the terminal) and used --url as typed.
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { printable, relayUrl } from '../../src/cli/connect.js';

describe('what connect prints of an app', () => {
  it("writes a terminal's escape sequences and other controls as escapes, line by line", () => {
    expect(printable("sonarr 'sonarr': root folder /tv/\u001b]0;owned\u0007\u001b[2J (no library)\nnext line\n")).toBe(
      "sonarr 'sonarr': root folder /tv/\\u001b]0;owned\\u0007\\u001b[2J (no library)\nnext line\n",
    );
    expect(printable('a \u202eevil\r b')).toBe('a \\u202eevil\\r b');
  });
});

describe('--url', () => {
  it('is taken as the URL parser reads it, without a trailing slash', () => {
    expect(relayUrl('http://scanrelay:3468/')).toBe('http://scanrelay:3468');
    expect(relayUrl('HTTP://Scanrelay:3468/relay base/')).toBe('http://scanrelay:3468/relay%20base');
  });

  it.each(['scanrelay:3468', 'ftp://scanrelay', 'http://user:pass@scanrelay:3468', 'http://scanrelay:3468/?next=x', 'http://scanrelay:3468/#x'])('refuses %s', (value) => {
    expect(() => relayUrl(value)).toThrow(InvalidArgumentError);
  });
});
