/** ANSI colours of a log line as classed segments (SGR read by anser): named colours, 256-colour names, resets, and every other escape dropped. */
import { expect } from 'chai';
import { ansiSegments } from '../../src/web/pages/ansi';

describe('ansiSegments', () => {
  it('keeps a line without escapes whole, markup included (the page escapes it)', () => {
    expect(ansiSegments('<b>x</b> & y')).to.deep.equal([['', '<b>x</b> & y']]);
  });

  it('names foreground, background, bright and bold, and resets', () => {
    expect(ansiSegments('\x1b[1;31mred\x1b[0m plain \x1b[92;44mgo\x1b[39mon\x1b[m.')).to.deep.equal([
      ['ansi-red-fg ansi-bold', 'red'], ['', ' plain '], ['ansi-bright-green-fg ansi-blue-bg', 'go'], ['ansi-blue-bg', 'on'], ['', '.'],
    ]);
  });

  it('maps the 16 named colours of 256-colour codes and leaves other colours default', () => {
    expect(ansiSegments('\x1b[38;5;9ma\x1b[38;5;200mb\x1b[38;2;1;2;3mc\x1b[48;5;2md')).to.deep.equal([
      ['ansi-bright-red-fg', 'a'], ['', 'bc'], ['ansi-green-bg', 'd'],
    ]);
  });

  it('drops cursor moves, titles and links', () => {
    expect(ansiSegments('\x1b[2K\x1b]0;title\x07one \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ two')).to.deep.equal([['', 'one link two']]);
  });
});
